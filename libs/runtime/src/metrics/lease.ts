import type { Redis } from 'ioredis';

// Who samples a service's queues: one process at a time, whichever holds a
// short lease in Redis. The holder renews it each round; if it dies, the
// lease runs out and the next process to try takes over.
const CLAIM = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export interface SamplerLease {
  /** Takes or renews the lease; true while this process holds it. */
  claim(): Promise<boolean>;
  /** Gives it up (at shutdown), so another process takes over at its next round. */
  release(): Promise<void>;
}

export function samplerLease(options: {
  redis: Redis;
  key: string;
  holder: string;
  ttlMs: number;
}): SamplerLease {
  return {
    claim: async () =>
      (await options.redis.eval(CLAIM, 1, options.key, options.holder, String(options.ttlMs))) === 1,
    release: async () => {
      await options.redis.eval(RELEASE, 1, options.key, options.holder);
    },
  };
}
