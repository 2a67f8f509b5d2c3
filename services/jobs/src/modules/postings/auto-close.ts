import type { MikroORM } from '@hireflow/db';
import { createTaskWorker, type Logger, type TaskWorker } from '@hireflow/messaging';
import { closePosting } from './service.ts';
import type { StatusFeed } from './status-feed.ts';

export const AUTO_CLOSE_QUEUE = 'auto-close';

/** As earlier versions stored it: `jobId` is the posting's id. */
export interface AutoCloseTask {
  jobId: string;
  tenantId: string;
}

/**
 * Postings close themselves at their close_at through the worker's sweep
 * (worker.ts), which needs no Redis write per posting. This worker only
 * drains the delayed tasks that earlier versions scheduled, one per posting;
 * closing twice is harmless (closePosting emits job.closed.v1 once).
 */
export function startAutoCloseWorker(options: {
  orm: MikroORM;
  redisUrl: string;
  prefix: string;
  feed: StatusFeed;
  log: Logger;
}): TaskWorker<AutoCloseTask, void> {
  return createTaskWorker<AutoCloseTask, void>({
    name: AUTO_CLOSE_QUEUE,
    connection: options.redisUrl,
    prefix: options.prefix,
    concurrency: 5,
    logger: options.log,
    processor: async (task) => {
      const { jobId: postingId, tenantId } = task.data;
      // closePosting locks the row and emits job.closed.v1 only once, whoever closes first.
      const result = await closePosting(options.orm.em.fork(), tenantId, postingId);
      if (result?.changed) {
        const matchCount = result.posting.matchCount ?? null;
        await options.feed.notify({ postingId, status: 'closed', matchCount }, options.log);
      }
    },
  });
}
