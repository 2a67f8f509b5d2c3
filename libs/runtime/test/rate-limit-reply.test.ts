import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { failedAuthLimiter } from '../src/front-door.ts';

// Found by the chaos soak (docs/chaos.md): while Redis restarted, a limiter
// script answered with neither an error nor a reply, and the rate limiter of
// the time read `result[0]` inside ioredis's callback: an uncaught TypeError
// that took the jobs API process down. The front door's own scripts are
// awaited inside a try: a missing or malformed reply must let the request
// through (fail open, as with Redis away), never throw.
function redisAnswering(reply: unknown): Redis {
  return { eval: async () => reply } as unknown as Redis;
}

const warnings: unknown[] = [];
const log = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;

describe('the front door when Redis gives no reply', () => {
  for (const [label, reply] of [
    ['no reply', null],
    ['a reply that is not a list', 'OK'],
  ] as const) {
    it(`lets the request through on ${label}`, async () => {
      warnings.length = 0;
      const limiter = failedAuthLimiter({
        redis: redisAnswering(reply),
        prefix: 'test',
        max: 5,
        windowMs: 60_000,
        rateWindowMs: 60_000,
        log,
      });
      await expect(limiter.standing('203.0.113.7', 'digest')).resolves.toMatchObject({
        addressLimited: false,
        credentialLimited: false,
      });
      await expect(limiter.countRequest('key-1')).resolves.toBeUndefined();
      await expect(limiter.recordFailure('203.0.113.7', 'digest')).resolves.toBeUndefined();
      // Each fail-open is said once in the log.
      expect(warnings.length).toBeGreaterThanOrEqual(2);
    });
  }
});
