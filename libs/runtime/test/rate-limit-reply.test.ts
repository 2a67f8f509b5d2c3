import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedLimiterReplies } from '../src/front-door.ts';

// Found by the chaos soak (docs/chaos.md): while Redis restarted, the rate
// limiter's script command answered with neither an error nor a reply, and
// @fastify/rate-limit's store read `result[0]` inside ioredis's callback: an
// uncaught TypeError that took the jobs API process down.
function redisWithoutReply(): Redis {
  const fake = {
    status: 'ready',
    defineCommand(name: string) {
      (fake as Record<string, unknown>)[name] = (...args: unknown[]) => {
        const callback = args.pop() as (error: Error | null, result: unknown) => void;
        // As ioredis does: the callback runs on a later tick, outside any try.
        process.nextTick(() => callback(null, null));
      };
    },
  };
  return fake as unknown as Redis;
}

describe('the API rate limiter when Redis gives no reply', () => {
  const app = Fastify();
  afterAll(() => app.close());

  it('lets the request through instead of throwing', async () => {
    const crashes: Error[] = [];
    const onUncaught = (error: Error) => crashes.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      await app.register(rateLimit, {
        max: 10,
        timeWindow: 60_000,
        redis: checkedLimiterReplies(redisWithoutReply()),
        skipOnError: true,
      });
      app.get('/v1/thing', async () => ({ ok: true }));
      const response = await app.inject({ method: 'GET', url: '/v1/thing' });
      expect(response.statusCode).toBe(200);
      expect(crashes).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
