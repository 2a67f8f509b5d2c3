import type { MikroORM } from '@hireflow/db';
import { createJobWorker, type JobWorker, type Logger } from '@hireflow/messaging';
import { closeJob } from './service.ts';
import type { StatusFeed } from './status-feed.ts';

export const AUTO_CLOSE_QUEUE = 'auto-close';

export interface AutoCloseJob {
  jobId: string;
  tenantId: string;
}

/**
 * Postings close themselves at their close_at through the worker's sweep
 * (worker.ts), which needs no Redis write per posting. This worker only
 * drains the delayed jobs that earlier versions scheduled, one per posting;
 * closing twice is harmless (closeJob emits job.closed.v1 once).
 */
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
