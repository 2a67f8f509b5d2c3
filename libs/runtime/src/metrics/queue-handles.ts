import { madeOnFirstUse, untraced } from '@hireflow/messaging';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

/**
 * Handles on the service's BullMQ queues, to observe them: the queue sampler
 * (in a process that runs the worker) and Bull Board (on its first request).
 * Made on the first `get`, not at start, so a process that observes no queue
 * (an API process, a service with none) never loads BullMQ (~10 MB of RSS;
 * issue 31, test/role-modules.test.ts).
 */
export interface QueueHandles {
  /** The queues' names (Bull Board is served when there is one). */
  readonly names: readonly string[];
  /**
   * One handle per queue, made on the first call (BullMQ imported then) and
   * shared by the calls that race to it; the same handles after. A failure
   * on the way rejects the calls that waited, and the next call tries again.
   */
  get(): Promise<Queue[]>;
  /** Closes the handles, if any were made. */
  close(): Promise<void>;
}

export function queueHandles(options: {
  names: readonly string[];
  redis: Redis;
  /** The service's Redis key prefix. */
  prefix: string;
  log: Logger;
}): QueueHandles {
  const { names } = options;
  const handles = madeOnFirstUse(
    async (): Promise<Queue[]> => {
      if (names.length === 0) return [];
      const { Queue } = await import('@hireflow/messaging/bullmq');
      // Outside the first caller's trace (Bull Board's first request): a handle's set-up belongs to no request.
      return untraced(() =>
        names.map((name) => {
          const queue = new Queue(name, { connection: options.redis, prefix: options.prefix });
          queue.on('error', (error) =>
            options.log.warn({ err: error, queue: name }, 'queue connection error'),
          );
          return queue;
        }),
      );
    },
    async (queues) => {
      await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
    },
    'the queue handles are closed',
  );
  return { names, get: () => handles.get(), close: () => handles.close() };
}
