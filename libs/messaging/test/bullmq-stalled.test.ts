import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { createTaskWorker } from '../src/tasks.ts';
import { REDIS, useTaskQueues } from './task-queues.ts';

const { setup, cleanups } = useTaskQueues();

// Found by the chaos soak (docs/chaos.md): BullMQ takes a job back from a
// worker that died holding it once (maxStalledCount 1); the second time it
// fails it for good, "job stalled more than allowable limit". Worker pools
// replace crashed workers as a matter of course, so two crashes over one
// job made a dead letter of a computation nothing was wrong with.
describe('a job whose workers die holding it', () => {
  it('is taken back after a second stall too, and completes', async () => {
    const { name, prefix, queue } = setup<{ n: number }>('stalled');
    let taken = 0;
    const start = (processor: () => Promise<unknown>, closeTimeoutMs?: number) => {
      const worker = createTaskWorker<{ n: number }>({
        ...{ name, prefix, connection: REDIS, processor },
        ...{ lockDurationMs: 500, stalledIntervalMs: 300, closeTimeoutMs },
      });
      return worker;
    };
    // A worker that takes the job and dies with it: it stops renewing the lock.
    const hang = () => {
      taken += 1;
      return new Promise(() => undefined);
    };
    await queue.add('compute', { n: 1 }, { intentKey: 'compute:1' });
    for (let death = 1; death <= 2; death++) {
      const dying = start(hang, 50);
      await waitFor(() => taken === death, { timeoutMs: 15_000, message: `worker ${death} took the job` });
      await dying.close();
    }
    const survivor = start(async () => 'done');
    cleanups.push(() => survivor.close());
    await waitFor(
      async () => {
        const counts = await queue.queue.getJobCounts('completed', 'failed');
        return (counts.completed ?? 0) + (counts.failed ?? 0) === 1;
      },
      { timeoutMs: 15_000, message: 'the job settled' },
    );
    expect(await queue.deadLetterCount()).toBe(0);
    expect(await queue.queue.getJobCounts('completed')).toEqual({ completed: 1 });
  });
});
