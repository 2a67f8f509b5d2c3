import type { EntityManager } from '@hireflow/db';
import { jobIdFor } from '@hireflow/messaging';
import { stuckIntents } from '../notifications/store.ts';
import type { EmailQueue } from './queue.ts';

/**
 * The notification log is the source of truth; BullMQ only carries the work.
 * An intent still `queued` long after it was recorded whose job is gone (Redis
 * lost it, the add failed after the handler committed) is added again; one
 * whose job BullMQ failed without our processor deciding so (it stalled
 * twice: two crashes mid-send) is retried; one whose id still names a
 * completed job of an earlier record of the key has that job removed and is
 * added again. Waiting, delayed and active jobs are left to run. Adding is
 * idempotent by job id, so several workers sweeping at once do no harm (a
 * job another sweeper just re-added may be removed and added once more).
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
    const state = job ? await job.getState() : 'missing';
    if (state === 'failed') {
      await job!.retry('failed');
    } else if (state === 'completed' || state === 'missing' || state === 'unknown') {
      // A completed job under this id belongs to an earlier record of the key:
      // BullMQ would ignore a new job with its id, so it goes first.
      if (job && state === 'completed') await job.remove().catch(() => undefined);
      await emails.enqueue([{ key, template }]);
    } else {
      continue; // waiting, delayed, active, prioritized: it will run
    }
    requeued.push(key);
  }
  return requeued;
}
