import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { retryLater } from '../src/index.ts';
import { createTaskWorker } from '../src/tasks.ts';
import { REDIS, useTaskQueues } from './task-queues.ts';

// The retry-later rule on the BullMQ side: a task that asks to come back
// later is moved to delayed, spends no attempt and is no failure; a task
// that never stops asking ends as a dead letter all the same.

const { setup, cleanups } = useTaskQueues();

describe('BullMQ worker: retry later', () => {
  it('moves a task that asks to come back later to delayed, without spending an attempt', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('retry-later', { attempts: 1 });
    const runs: { attemptsMade: number; startedAt: number }[] = [];
    const failed: string[] = [];
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      processor: async (task) => {
        runs.push({ attemptsMade: task.attemptsMade, startedAt: Date.now() });
        // Another holder's "in progress" as @hireflow/idempotency throws it, then a retry-later of our own.
        if (runs.length === 1) throw Object.assign(new Error('held'), { retryable: true, retryAfterMs: 300 });
        if (runs.length === 2) throw retryLater('projection not ready', 200);
        return 'sent';
      },
    });
    worker.worker.on('failed', (_task, error) => failed.push(error.name));
    cleanups.push(() => worker.close());
    const id = await queue.add('email', { n: 1 }, { intentKey: 'welcome-email:cand-later' });
    await waitFor(async () => (await queue.queue.getJob(id))?.returnvalue === 'sent', { timeoutMs: 15_000 });

    const task = (await queue.queue.getJob(id))!;
    // One attempt allowed, two waits taken: neither was an attempt (BullMQ counts the run that completed).
    expect(task.attemptsMade).toBe(1);
    expect(runs.map((r) => r.attemptsMade)).toEqual([0, 0, 0]);
    expect(await queue.deadLetterCount()).toBe(0);
    // The first wait is bounded by the holder's lease (300 ms), not the rule's 1 s; the second is the 200 ms asked.
    expect(runs[1]!.startedAt - runs[0]!.startedAt).toBeGreaterThanOrEqual(250);
    expect(runs[2]!.startedAt - runs[1]!.startedAt).toBeGreaterThanOrEqual(150);
    expect(failed.filter((n) => n !== 'DelayedError')).toEqual([]);
  });

  it('counts a retry-later as a failed attempt once the task has waited maxRetryLaters times', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('retry-later-bound', { attempts: 1 });
    let runs = 0;
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      maxRetryLaters: 2,
      processor: async () => {
        runs += 1;
        throw retryLater('held for ever', 50);
      },
    });
    cleanups.push(() => worker.close());
    await queue.add('email', { n: 1 }, { intentKey: 'welcome-email:cand-forever' });
    await waitFor(async () => (await queue.deadLetterCount()) === 1, { timeoutMs: 15_000 });
    expect(runs).toBe(3);
    const [dead] = await queue.deadLetters();
    expect(dead).toMatchObject({ failedReason: 'came back later 2 times: held for ever', attemptsMade: 1 });
  });
});
