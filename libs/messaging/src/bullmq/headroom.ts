// Headroom (docs/fairness.md): slots a worker opens beyond its concurrency,
// only for a task that jumps a line of a fair queue. Fairness puts such a
// task at the head of the queue (fair.ts), but a worker whose every slot runs
// the flood it jumped takes nothing before one of its running tasks ends:
// tens of ms for short tasks on a loaded machine, the whole task for long
// ones. The add announces the task (a publish on `<queue>:fair:jump`); a
// worker with every slot busy hears it and takes one task more at once, the
// head of the queue: the task announced. Its pool then shrinks back as tasks
// end (BullMQ takes no next task while more run than its concurrency).
// While nothing jumps, the headroom stays shut: no slot is held back from a
// flood that runs alone.
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { jumpChannel } from './fair.ts';

export interface Headroom {
  /** Runs one task, counted among the worker's running tasks. */
  run<T>(task: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** BullMQ's worker wakes its fetch loop when a settled promise joins its queue of running tasks. */
interface MainLoop {
  mainLoopQueue?: { add(promise: Promise<unknown>): void } | null;
}

/**
 * Listens on the queue's jump channel on a connection of its own (a
 * subscriber), duplicated from `redis`. `concurrency`: the worker's own;
 * `slots`: the headroom.
 */
export function openHeadroom(
  worker: Worker,
  redis: Redis,
  options: { concurrency: number; slots: number; log: Logger },
): Headroom {
  const { concurrency, slots, log } = options;
  let running = 0;
  const shut = () => {
    worker.concurrency = concurrency;
  };
  const subscriber = redis.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
  subscriber.on('error', (error) => log.debug({ err: error }, 'headroom subscriber error'));
  const channel = jumpChannel((type) => worker.toKey(type));
  subscriber.subscribe(channel).catch((error: unknown) => log.warn({ err: error }, 'headroom not listening'));
  subscriber.on('message', (_channel: string, message: string) => {
    // A worker with a free slot takes the task anyway (BullMQ wakes it).
    if (running < concurrency || worker.closing) return;
    const wanted = Math.min(concurrency + slots, worker.concurrency + Math.max(1, Number(message) || 1));
    if (wanted <= worker.concurrency) return;
    worker.concurrency = wanted;
    // The fetch loop waits for a running task to end; a settled promise wakes it to fetch now.
    (worker as unknown as MainLoop).mainLoopQueue?.add(Promise.resolve(undefined));
  });
  // A fetch that found nothing must not leave a slot open for whatever comes next.
  worker.on('drained', shut);
  return {
    async run(task) {
      running += 1;
      // One slot of headroom is spent: this task is the one it was opened for (the queue's head).
      if (worker.concurrency > concurrency) worker.concurrency -= 1;
      try {
        return await task();
      } finally {
        running -= 1;
      }
    },
    async close() {
      shut();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
