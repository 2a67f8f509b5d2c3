import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';

// The front door's shared counters, in Redis so that every API process of a
// service holds the same limits. Each is one round trip (a Lua script), and
// each fails open while Redis is away: a limit that cannot be checked must
// not take the API down with it (the outage is logged).

const COUNT_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/** A fail-fast connection for a limiter: no offline queue, short command timeout. */
export function limiterConnection(redis: Redis): Redis {
  const connection = redis.duplicate({
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
  });
  connection.on('error', () => undefined);
  return connection;
}

/**
 * The Redis that @fastify/rate-limit's store is given, with its two script
 * commands' replies checked: the store reads `result[0]` whenever there is no
 * error, and a missing reply (seen while Redis restarted, with this
 * connection's command timeout) threw inside ioredis's callback, an uncaught
 * exception that took the API process down (found by the chaos soak;
 * test/rate-limit-reply.test.ts). A missing reply becomes an error, which
 * `skipOnError` lets through.
 */
export function checkedLimiterReplies(redis: Redis): Redis {
  const commands = new Set(['rateLimit', 'rateLimitRead']);
  return new Proxy(redis, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !commands.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        const callback = args.pop() as (error: Error | null, result?: unknown) => void;
        return value.call(target, ...args, (error: Error | null, result: unknown) =>
          callback(
            error ?? (Array.isArray(result) ? null : new Error(`${property}: no reply from Redis`)),
            result,
          ),
        );
      };
    },
  });
}

export interface FailedAuthLimiter {
  /** Whether this address failed too often lately; checked before any credential is looked up. */
  blocked(address: string): Promise<{ blocked: boolean; retryAfterSeconds: number }>;
  /** Counts a request from this address with missing, malformed or unknown credentials. */
  recordFailure(address: string): Promise<void>;
}

/**
 * At most `max` requests with failed credentials per address per window:
 * beyond, the address gets 429 before its credentials cost a lookup. A
 * client with a valid key is never counted.
 */
export function failedAuthLimiter(options: {
  redis: Redis;
  prefix: string;
  max: number;
  windowMs: number;
  log: Logger;
}): FailedAuthLimiter {
  const keyOf = (address: string) => `${options.prefix}:failed-auth:${address}`;
  const failOpen = (error: unknown) => {
    options.log.warn({ err: error }, 'failed-auth limiter unavailable: not limiting');
  };
  return {
    async blocked(address) {
      try {
        const [count, ttl] = await Promise.all([
          options.redis.get(keyOf(address)),
          options.redis.pttl(keyOf(address)),
        ]);
        const blocked = Number(count ?? 0) >= options.max;
        return { blocked, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(ttl, 0) / 1000)) };
      } catch (error) {
        failOpen(error);
        return { blocked: false, retryAfterSeconds: 0 };
      }
    },
    async recordFailure(address) {
      await options.redis.eval(COUNT_FAILURE, 1, keyOf(address), options.windowMs).catch(failOpen);
    },
  };
}

const ACQUIRE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export interface ConcurrencySlots {
  /** Takes a slot of `owner` (an API key) for `id`; false when all `limit` slots are held. */
  acquire(owner: string, id: string): Promise<boolean>;
  /** Keeps a held slot from expiring (call more often than the lease). */
  renew(owner: string, id: string): Promise<void>;
  release(owner: string, id: string): Promise<void>;
}

/**
 * At most `limit` long-lived things (SSE streams) per owner across every
 * process: each slot is a sorted-set member whose score is its lease end, so
 * a process that died without releasing frees its slots when they expire.
 */
export function concurrencySlots(options: {
  redis: Redis;
  prefix: string;
  limit: number;
  leaseMs: number;
  log: Logger;
}): ConcurrencySlots {
  const keyOf = (owner: string) => `${options.prefix}:${owner}`;
  return {
    async acquire(owner, id) {
      const now = Date.now();
      try {
        const taken = await options.redis.eval(
          ACQUIRE_SLOT,
          1,
          keyOf(owner),
          now,
          options.limit,
          now + options.leaseMs,
          id,
          options.leaseMs * 2,
        );
        return taken === 1;
      } catch (error) {
        options.log.warn({ err: error }, 'concurrency slots unavailable: not limiting');
        return true;
      }
    },
    async renew(owner, id) {
      await options.redis.zadd(keyOf(owner), 'XX', Date.now() + options.leaseMs, id).catch(() => undefined);
    },
    async release(owner, id) {
      await options.redis.zrem(keyOf(owner), id).catch(() => undefined);
    },
  };
}
