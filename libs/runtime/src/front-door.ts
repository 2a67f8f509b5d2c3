import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';

// The front door's shared counters, in Redis so that every API process of a
// service holds the same limits. A request with a cached key costs one round
// trip (a Lua script: the address's failures and the key's count), and each
// fails open while Redis is away: a limit that cannot be checked must
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

// The address's failures, read in one script (GET and PTTL in one round trip).
const READ_FAILURES = `
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;

// A request with a key known without a lookup: the address's failures and the
// key's request count (fixed window: INCR, expiry set by the first) in one round trip.
const ADMIT = `
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures >= tonumber(ARGV[1]) then return {1, redis.call('PTTL', KEYS[1]), 0} end
if ARGV[2] == '0' then return {0, 0, 0} end
local count = redis.call('INCR', KEYS[2])
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]); ttl = tonumber(ARGV[2]) end
return {0, ttl, count}`;

// The key's request count alone, after a lookup.
const COUNT_REQUEST = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/** A key's requests in the current window, and when the window ends. */
export interface RequestCount {
  count: number;
  resetMs: number;
}

export interface FailedAuthLimiter {
  /** Whether this address failed too often lately; checked before any credential is looked up. */
  blocked(address: string): Promise<{ blocked: boolean; retryAfterSeconds: number }>;
  /** Counts a request from this address with missing, malformed or unknown credentials. */
  recordFailure(address: string): Promise<void>;
  /**
   * For a key known without a lookup (cached): `blocked` for the address and
   * the key's request count (when a rate limit is set), in one round trip.
   */
  admit(
    address: string,
    keyId: string,
  ): Promise<{ blocked: true; retryAfterSeconds: number } | { blocked: false; rate?: RequestCount }>;
  /** The key's request count (after a lookup); undefined without a rate limit or with Redis away. */
  countRequest(keyId: string): Promise<RequestCount | undefined>;
}

/**
 * A script's reply as the `length` integers it returns. Anything else (no
 * reply, seen while Redis restarted) throws, so the caller fails open as it
 * does with Redis away (found by the chaos soak; test/rate-limit-reply.test.ts).
 */
function integers(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length !== length || !reply.every((n) => Number.isInteger(n))) {
    throw new Error(`unexpected reply from a limiter script: ${JSON.stringify(reply)}`);
  }
  return reply as number[];
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
  /** The per-key request limit's window, counted here too (one round trip per request); 0 or absent: none. */
  rateWindowMs?: number;
  log: Logger;
}): FailedAuthLimiter {
  const keyOf = (address: string) => `${options.prefix}:failed-auth:${address}`;
  const rateKeyOf = (keyId: string) => `${options.prefix}:rate-limit:${keyId}`;
  const rateWindowMs = options.rateWindowMs ?? 0;
  const failOpen = (error: unknown) => {
    options.log.warn({ err: error }, 'failed-auth limiter unavailable: not limiting');
  };
  const retryAfter = (ttl: number) => Math.max(1, Math.ceil(Math.max(ttl, 0) / 1000));
  return {
    async blocked(address) {
      try {
        const [count, ttl] = integers(await options.redis.eval(READ_FAILURES, 1, keyOf(address)), 2) as [
          number,
          number,
        ];
        return { blocked: count >= options.max, retryAfterSeconds: retryAfter(ttl) };
      } catch (error) {
        failOpen(error);
        return { blocked: false, retryAfterSeconds: 0 };
      }
    },
    async admit(address, keyId) {
      try {
        const [blocked, ttl, count] = integers(
          await options.redis.eval(ADMIT, 2, keyOf(address), rateKeyOf(keyId), options.max, rateWindowMs),
          3,
        ) as [number, number, number];
        if (blocked === 1) return { blocked: true, retryAfterSeconds: retryAfter(ttl) };
        return rateWindowMs > 0 ? { blocked: false, rate: { count, resetMs: ttl } } : { blocked: false };
      } catch (error) {
        failOpen(error);
        return { blocked: false };
      }
    },
    async countRequest(keyId) {
      if (rateWindowMs <= 0) return undefined;
      try {
        const [count, ttl] = integers(
          await options.redis.eval(COUNT_REQUEST, 1, rateKeyOf(keyId), rateWindowMs),
          2,
        ) as [number, number];
        return { count, resetMs: ttl };
      } catch (error) {
        failOpen(error);
        return undefined;
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
