// The service's handles on its BullMQ queues (issue 31): made on the first
// use, once for the uses that race to it, never for a service without queues.
import { uniqueName } from '@hireflow/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, queueHandles } from '../src/index.ts';

const log = createLogger('runtime-test', 'silent');

describe('queue handles', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('are made once, on the first use, for the uses that race to it', async () => {
    const names = [uniqueName('handles-a'), uniqueName('handles-b')];
    const handles = queueHandles({ names, redis, prefix: `test:${uniqueName('handles')}`, log });
    try {
      const [first, second] = await Promise.all([handles.get(), handles.get()]);
      expect(first).toBe(second);
      expect(first.map((queue) => queue.name)).toEqual(names);
      expect(await handles.get()).toBe(first);
      // A queue handle writes its queue's settings into Redis: removed with the test.
      for (const queue of first) await queue.obliterate({ force: true });
    } finally {
      await handles.close();
    }
    await expect(handles.get()).rejects.toThrow(/closed/);
  });

  it('are none for a service without queues, and close before any use', async () => {
    const none = queueHandles({ names: [], redis, prefix: 'test:none', log });
    expect(await none.get()).toEqual([]);
    await none.close();
    const prefix = `test:${uniqueName('unused')}`;
    const unused = queueHandles({ names: [uniqueName('unused')], redis, prefix, log });
    await unused.close();
    // No queue was made: a Queue writes its settings under the prefix when made.
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
    await expect(unused.get()).rejects.toThrow(/closed/);
  });
});
