import { waitFor } from '@hireflow/testing';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { backoffBound } from '../src/backoff.ts';
import { PermanentError, taskIdFor } from '../src/index.ts';
import { createTaskWorker } from '../src/tasks.ts';
import { REDIS, useTaskQueues } from './task-queues.ts';

const { setup, cleanups } = useTaskQueues();

describe('BullMQ conventions', () => {
  it('derives job ids from intent keys: no colons, stable, collision-free, and a duplicate add is a no-op', async () => {
    expect(taskIdFor('welcome-email:42')).toBe(taskIdFor('welcome-email:42'));
    expect(taskIdFor('welcome-email:42')).not.toContain(':');
    expect(taskIdFor('a:b')).not.toBe(taskIdFor('a_b'));
    expect(taskIdFor('x'.repeat(500)).length).toBeLessThanOrEqual(120);
    const { queue } = setup<{ n: number }>('jobid');
    const first = await queue.add('send', { n: 1 }, { intentKey: 'welcome-email:cand-1' });
    const second = await queue.add('send', { n: 2 }, { intentKey: 'welcome-email:cand-1' });
    expect(second).toBe(first);
    expect(await queue.queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });

  it('does not retry a permanent failure; keeps it as a counted dead letter', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('permanent');
    let runs = 0;
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      processor: async () => {
        runs += 1;
        throw new PermanentError('corrupt image');
      },
    });
    cleanups.push(() => worker.close());
    await queue.add('resize', { n: 1 }, { intentKey: 'resize:upload-1' });
    await waitFor(async () => (await queue.deadLetterCount()) === 1, { timeoutMs: 10_000 });
    expect(runs).toBe(1);
    const [dead] = await queue.deadLetters();
    expect(dead).toMatchObject({
      name: 'resize',
      failedReason: 'corrupt image',
      attemptsMade: 1,
      data: { n: 1 },
    });
  });

  it('retries with delays within full-jitter bounds, then keeps the exhausted job as a dead letter', async () => {
    const backoff = { base: 40, cap: 200 };
    const { name, prefix, queue } = setup<{ n: number }>('exhaust', { attempts: 4, backoff });
    const delays: { attemptsMade: number; delay: number }[] = [];
    const draws = [0.5, 0.99, 0.99];
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      backoff,
      random: () => draws.shift() ?? 0,
      processor: async () => {
        throw new Error('smtp down');
      },
    });
    worker.worker.on('failed', (job: Job | undefined) => {
      if (job) delays.push({ attemptsMade: job.attemptsMade, delay: job.delay });
    });
    cleanups.push(() => worker.close());
    await queue.add('email', { n: 1 }, { intentKey: 'welcome-email:cand-2' });
    await waitFor(async () => (await queue.deadLetterCount()) === 1, { timeoutMs: 15_000 });

    expect(delays.map((d) => d.attemptsMade)).toEqual([1, 2, 3, 4]);
    const retries = delays.slice(0, 3);
    retries.forEach(({ delay }, i) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(backoffBound(i, backoff));
    });
    // Draws 0.5, 0.99, 0.99 under bounds 40, 80, 160.
    expect(retries.map((d) => d.delay)).toEqual([20, 80, 159]);
    const [dead] = await queue.deadLetters();
    expect(dead).toMatchObject({ failedReason: 'smtp down', attemptsMade: 4 });
  });

  it('close() returns within its timeout while a job is stuck', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('stuck');
    let started = false;
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      closeTimeoutMs: 500,
      processor: () => {
        started = true;
        return new Promise(() => undefined);
      },
    });
    await queue.add('hang', { n: 1 }, { intentKey: 'hang:1' });
    await waitFor(() => started, { timeoutMs: 10_000 });
    const before = Date.now();
    const result = await worker.close();
    const took = Date.now() - before;
    expect(result.forced).toBe(true);
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5000);
  });
});
