import type { EntityManager } from '@hireflow/db';
import { jobIdFor } from '@hireflow/messaging';
import { stuckIntents } from '../notifications/store.ts';
import type { EmailQueue } from './queue.ts';

/**
 * The notification log is the source of truth; BullMQ only carries the work.
 * An intent still `queued` long after it was recorded whose job is gone (Redis
 * lost it, the add failed after the handler committed) is added again; one
 * whose job BullMQ failed without our processor deciding so (it stalled
 * twice: two crashes mid-send) is retried. Adding is idempotent by job id, so
 * several workers sweeping at once do no harm.
 */
export async function requeueStuckEmails(
  em: EntityManager,
  emails: EmailQueue,
  options: { olderThanMs: number; limit?: number },
): Promise<string[]> {
  const stuck = await stuckIntents(em, { olderThanMs: options.olderThanMs, limit: options.limit ?? 100 });
  const requeued: string[] = [];
  for (const { key, template } of stuck) {
    const job = await emails.jobs.queue.getJob(jobIdFor(key));
    if (!job) {
      await emails.enqueue([{ key, template }]);
      requeued.push(key);
    } else if (await job.isFailed()) {
      await job.retry('failed');
      requeued.push(key);
    }
  }
  return requeued;
}
