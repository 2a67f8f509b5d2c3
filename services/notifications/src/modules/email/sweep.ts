import type { Sql } from '@hireflow/db';
import type { EmailQueue } from '../intents/email-queue.ts';
import { stuckIntents } from '../intents/store.ts';

/**
 * The notification log is the source of truth; BullMQ only carries the work.
 * An intent still `queued` long after it was recorded whose task is gone (Redis
 * lost it, the add failed after the handler committed) is added again; one
 * whose task BullMQ failed without our processor deciding so (it stalled
 * twice: two crashes mid-send) is retried; one whose id still names a
 * completed task of an earlier record of the key has that task removed and is
 * added again. Waiting, delayed and active tasks are left to run. Adding is
 * idempotent by task id, so several workers sweeping at once do no harm (a
 * task another sweeper just re-added may be removed and added once more).
 */
export async function requeueStuckEmails(
  em: Sql,
  emails: EmailQueue,
  options: { olderThanMs: number; limit?: number },
): Promise<string[]> {
  const stuck = await stuckIntents(em, { olderThanMs: options.olderThanMs, limit: options.limit ?? 100 });
  const requeued: string[] = [];
  for (const { key, template, tenant_id: tenantId } of stuck) {
    // A completed task under this id belongs to an earlier record of the key: makeRoom removes it.
    const state = await emails.tasks.makeRoom(key);
    if (state === 'failed') await emails.tasks.retryDeadLetter(key);
    else if (state === 'free') await emails.enqueue([{ key, template, tenantId }]);
    else continue; // waiting, delayed, active: it will run
    requeued.push(key);
  }
  return requeued;
}
