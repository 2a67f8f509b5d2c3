import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { createTaskWorker } from '../src/tasks.ts';
import { REDIS, useTaskQueues } from './task-queues.ts';

// A dependency that is only unreachable is waited out by a BullMQ worker as
// by the SQS consumer: no attempt spent while it is away (up to the queue's
// bound), then such failures count; a task that failed for good only for a
// dependency is run again by the sweeps' makeRoom, with fresh attempts.

const { setup, cleanups } = useTaskQueues();
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('BullMQ worker: a dependency that is only unavailable', () => {
  it('waits it out without spending attempts, far past attempts × backoff', async () => {
    // 2 attempts, backoff base 10 ms: today's budget is one wait of at most 10 ms.
    const { name, prefix, queue } = setup<{ n: number }>('unavailable', {
      attempts: 2,
      backoff: { base: 10, cap: 20 },
    });
    let runs = 0;
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      backoff: { base: 10, cap: 20 },
      processor: async () => {
        runs += 1;
        if (runs <= 6) throw new Error('insert failed', { cause: refused() });
        return 'done';
      },
    });
    cleanups.push(() => worker.close());
    const id = await queue.add('compute', { n: 1 }, { intentKey: 'match-posting:outage' });
    await waitFor(async () => (await queue.queue.getJob(id))?.returnvalue === 'done', { timeoutMs: 30_000 });
    const task = (await queue.queue.getJob(id))!;
    expect(runs).toBe(7);
    expect(task.attemptsMade).toBe(1);
    expect(await queue.deadLetterCount()).toBe(0);
  });

  it('counts such failures once the task has waited maxUnavailableMs, marked for the sweep, which runs it again', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('unavailable-bound', {
      attempts: 2,
      backoff: { base: 10, cap: 20 },
    });
    let down = true;
    let runs = 0;
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      backoff: { base: 10, cap: 20 },
      maxUnavailableMs: 600,
      processor: async () => {
        runs += 1;
        if (down) throw refused();
        return 'done';
      },
    });
    cleanups.push(() => worker.close());
    const intentKey = 'match-posting:long-outage';
    const id = await queue.add('compute', { n: 1 }, { intentKey });
    await waitFor(async () => (await queue.deadLetterCount()) === 1, { timeoutMs: 30_000 });
    const [dead] = await queue.deadLetters();
    expect(dead!.failedReason).toMatch(/^dependency unavailable: connect ECONNREFUSED .* \(waited \d+ s\)$/);
    expect(dead!.attemptsMade).toBe(2);
    expect(runs).toBeGreaterThan(2);

    down = false;
    expect(await queue.makeRoom(intentKey)).toBe('pending');
    await waitFor(async () => (await queue.queue.getJob(id))?.returnvalue === 'done', { timeoutMs: 30_000 });
    expect(await queue.deadLetterCount()).toBe(0);
  });

  it('bounds the waits it was given, not the time since the first failure: time queued behind other work is not a wait', async () => {
    // One attempt: a failure that counts is a dead letter. The bound (600 ms)
    // is shorter than the time the task spends queued behind a slow task
    // (1.5 s) between its two unavailable failures; measured from the first
    // failure, the second one would count and dead-letter the task.
    const { name, prefix, queue } = setup<{ n: number }>('unavailable-backlog', {
      attempts: 1,
      backoff: { base: 10, cap: 20 },
    });
    const runs: number[] = [];
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      concurrency: 1,
      backoff: { base: 10, cap: 20 },
      maxUnavailableMs: 600,
      processor: async (job) => {
        runs.push(job.data.n);
        if (job.data.n === 2) {
          // Slow work holding the only slot while the first task's wait ends.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return 'slow';
        }
        if (runs.filter((n) => n === 1).length <= 2) throw refused();
        return 'done';
      },
    });
    cleanups.push(() => worker.close());
    const id = await queue.add('compute', { n: 1 }, { intentKey: 'match-posting:backlog' });
    await queue.add('compute', { n: 2 }, { intentKey: 'match-posting:slow' });
    await waitFor(async () => (await queue.queue.getJob(id))?.returnvalue === 'done', { timeoutMs: 30_000 });
    expect(runs).toEqual([1, 2, 1, 1]);
    expect(await queue.deadLetterCount()).toBe(0);
  });

  it('leaves other failures to count at once, and their dead letters to the sweep’s caller', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('unavailable-other', {
      attempts: 2,
      backoff: { base: 10, cap: 20 },
    });
    let runs = 0;
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      backoff: { base: 10, cap: 20 },
      processor: async () => {
        runs += 1;
        // An outage, then a failure of another kind: the outage spends nothing, the others count.
        if (runs === 1) throw refused();
        throw new Error('duplicate key value violates unique constraint');
      },
    });
    cleanups.push(() => worker.close());
    const intentKey = 'match-posting:bug';
    await queue.add('compute', { n: 1 }, { intentKey });
    await waitFor(async () => (await queue.deadLetterCount()) === 1, { timeoutMs: 30_000 });
    expect(runs).toBe(3);
    const [dead] = await queue.deadLetters();
    expect(dead).toMatchObject({
      failedReason: 'duplicate key value violates unique constraint',
      attemptsMade: 2,
    });
    expect(await queue.makeRoom(intentKey)).toBe('failed');
  });
});
