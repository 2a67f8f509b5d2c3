import { randomUUID } from 'node:crypto';
import { createTaskQueue } from '@hireflow/messaging/tasks';
import { uniqueName } from '@hireflow/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dropRetiredAutoCloseQueue,
  RETIRED_AUTO_CLOSE_QUEUE,
} from '../src/compat/retired-auto-close-queue.ts';

// The auto-close queue of earlier versions goes, with the delayed tasks left
// in it (the sweep closes their postings from close_at), and stays gone.

const REDIS = 'redis://127.0.0.1:6379';
const redis = new Redis(REDIS);
afterAll(() => redis.quit());

const keysOf = (prefix: string) => redis.keys(`${prefix}:${RETIRED_AUTO_CLOSE_QUEUE}:*`);

describe('the retired auto-close queue', () => {
  it('is dropped with the tasks earlier versions left in it, and not brought back by the next run', async () => {
    const prefix = `hftest-${uniqueName('retired')}`;
    // As earlier versions scheduled it: one delayed task per posting, due at its close time.
    const old = createTaskQueue<{ jobId: string; tenantId: string }>({
      name: RETIRED_AUTO_CLOSE_QUEUE,
      connection: REDIS,
      prefix,
    });
    for (const jobId of [randomUUID(), randomUUID()]) {
      await old.add(
        'close',
        { jobId, tenantId: randomUUID() },
        { intentKey: `auto-close:${jobId}`, delay: 86_400_000 },
      );
    }
    await old.close();
    expect(await keysOf(prefix)).not.toEqual([]);

    const drop = dropRetiredAutoCloseQueue(redis, prefix);
    expect(await drop.run()).toEqual({ dropped: 2 });
    expect(await keysOf(prefix)).toEqual([]);
    expect(await drop.run()).toEqual({ dropped: 0 });
    expect(await keysOf(prefix)).toEqual([]);
  });
});
