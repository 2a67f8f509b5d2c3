import type { MikroORM } from '@hireflow/db';
import { idempotencyKey } from '@hireflow/idempotency';
import {
  createJobQueue,
  createJobWorker,
  type JobQueue,
  type JobWorker,
  type Logger,
} from '@hireflow/messaging';
import type { Redis } from 'ioredis';
import { closeJob } from './service.ts';
import type { StatusFeed } from './status-feed.ts';

export const AUTO_CLOSE_QUEUE = 'auto-close';

export interface AutoCloseJob {
  jobId: string;
  tenantId: string;
}

/** Postings close themselves after a configurable time: one delayed BullMQ job each. */
export function createAutoCloseQueue(redis: Redis, prefix: string, logger: Logger): JobQueue<AutoCloseJob> {
  return createJobQueue<AutoCloseJob>({ name: AUTO_CLOSE_QUEUE, connection: redis, prefix, logger });
}

export function scheduleAutoClose(
  queue: JobQueue<AutoCloseJob>,
  job: AutoCloseJob,
  delayMs: number,
): Promise<string> {
  return queue.add('close', job, { intentKey: idempotencyKey('auto-close', job.jobId), delay: delayMs });
}

export function startAutoCloseWorker(options: {
  orm: MikroORM;
  redisUrl: string;
  prefix: string;
  feed: StatusFeed;
  log: Logger;
}): JobWorker<AutoCloseJob, void> {
  return createJobWorker<AutoCloseJob, void>({
    name: AUTO_CLOSE_QUEUE,
    connection: options.redisUrl,
    prefix: options.prefix,
    concurrency: 5,
    logger: options.log,
    processor: async (job) => {
      // closeJob locks the row and emits job.closed.v1 only once, whoever closes first.
      const result = await closeJob(options.orm.em.fork(), job.data.tenantId, job.data.jobId);
      if (result?.changed) {
        const matchCount = result.posting.matchCount ?? null;
        await options.feed.notify({ jobId: job.data.jobId, status: 'closed', matchCount }, options.log);
      }
    },
  });
}
