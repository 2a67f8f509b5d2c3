import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';

// The front door's shared counters, in Redis so that every API process (and,
// for the per-key rate limit, every service) holds the same limits. Each
// request costs one round trip for its counts, and each fails open while
// Redis is away: a limit that cannot be checked must not take the API down
// with it (the outage is logged).

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

// The failures of an address and of a presented credential (the second key is
// optional: a missing or malformed credential has none), in one round trip.
const READ_FAILURES = `
local address = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
local credential = 0
if #KEYS > 1 then credential = tonumber(redis.call('GET', KEYS[2]) or '0') end
return {address, ttl, credential}`;

// One failure more for each key given; the first failure of a window sets its expiry.
const COUNT_FAILURE = `
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 1`;

// A key's request count (fixed window: INCR, expiry set by the first).
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

/** What the failed-credentials counters say of a request that did not authenticate yet. */
export interface FailureStanding {
  /** The address sent too many failed credentials lately: it gets no 401, only 429, until its window ends. */
  addressLimited: boolean;
  /** This very credential failed too often lately: refused without a lookup. */
  credentialLimited: boolean;
  retryAfterSeconds: number;
}

export interface FailedAuthLimiter {
  /**
   * The standing of an address and of the credential it presents (a digest,
   * absent when none or a malformed one was sent); read before any lookup.
   */
  standing(address: string, credential?: string): Promise<FailureStanding>;
  /** Counts a request with missing, malformed or unknown credentials, for its address and its credential. */
  recordFailure(address: string, credential?: string): Promise<void>;
  /** The key's request count; undefined without a rate limit or with Redis away. */
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
 * At most `max` requests with failed credentials per address, and per
 * presented credential, per window. Beyond, those requests get 429 instead
 * of 401; a valid key is never counted and never refused here, whatever its
 * address did (docs/security.md, API2): only its own rate limit applies.
 */
export function failedAuthLimiter(options: {
  redis: Redis;
  prefix: string;
  max: number;
  windowMs: number;
  /** The per-key request limit's window; 0 or absent: none. */
  rateWindowMs?: number;
  /**
   * Prefix of the per-key request counts: the same in every service, so one
   * key has one window across jobs and media (default `${prefix}:rate-limit`).
   */
  ratePrefix?: string;
  log: Logger;
}): FailedAuthLimiter {
  const addressKey = (address: string) => `${options.prefix}:failed-auth:${address}`;
  const credentialKey = (credential: string) => `${options.prefix}:failed-credential:${credential}`;
  const keysOf = (address: string, credential?: string) =>
    credential ? [addressKey(address), credentialKey(credential)] : [addressKey(address)];
  const rateKeyOf = (keyId: string) => `${options.ratePrefix ?? `${options.prefix}:rate-limit`}:${keyId}`;
  const rateWindowMs = options.rateWindowMs ?? 0;
  const failOpen = (error: unknown) => {
    options.log.warn({ err: error }, 'failed-auth limiter unavailable: not limiting');
  };
  const retryAfter = (ttl: number) => Math.max(1, Math.ceil(Math.max(ttl, 0) / 1000));
  return {
    async standing(address, credential) {
      try {
        const keys = keysOf(address, credential);
        const [addressCount, ttl, credentialCount] = integers(
          await options.redis.eval(READ_FAILURES, keys.length, ...keys),
          3,
        ) as [number, number, number];
        return {
          addressLimited: addressCount >= options.max,
          credentialLimited: credentialCount >= options.max,
          retryAfterSeconds: retryAfter(ttl),
        };
      } catch (error) {
        failOpen(error);
        return { addressLimited: false, credentialLimited: false, retryAfterSeconds: 0 };
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
    async recordFailure(address, credential) {
      const keys = keysOf(address, credential);
      await options.redis.eval(COUNT_FAILURE, keys.length, ...keys, options.windowMs).catch(failOpen);
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
