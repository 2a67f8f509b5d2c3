import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { taskIdFor } from '@hireflow/messaging';
import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { requeueStuckEmails } from '../src/modules/email/sweep.ts';
import { pruneNotificationLog } from '../src/modules/intents/store.ts';
import { jobMatched, jobPosted, useNotificationsHarness, waitForSent } from './harness.ts';

// An intent key such as job-matched:{postingId} collapses different events (each
// recomputation of a posting's matches): its record must outlive every event
// that can still ask for it, not only SQS's redelivery window.
const h = useNotificationsHarness('notif-retention');
const DAY = 24 * 3_600_000;

async function age(key: string, days: number) {
  await h.deps.orm.em
    .fork()
    .execute(
      `UPDATE notification_log SET created_at = created_at - ? * interval '1 day', updated_at = updated_at - ? * interval '1 day' WHERE key = ?`,
      [days, days, key],
    );
}

describe('notification log retention', () => {
  it('keeps a summary intent past the log retention: a later recomputation sends no second summary', async () => {
    const tenantId = randomUUID();
    const posting = jobPosted(tenantId);
    const { jobId: postingId } = posting.data;
    const key = idempotencyKey('job-matched', postingId);
    await h.publish(posting);
    await h.publish(jobMatched(tenantId, postingId, 2));
    await waitForSent(h, [key]);

    // 200 days on: past NOTIFICATION_LOG_RETENTION_DAYS (180), within the posting's life.
    await age(key, 200);
    await pruneNotificationLog(h.deps.orm.em.fork(), { olderThanMs: 180 * DAY });
    const kept = await h.notification(key);
    expect(kept).toMatchObject({ status: 'sent', recipient: '' });
    // BullMQ forgot the completed task long ago (it keeps them a day).
    await (await h.emails.tasks.queue.getJob(taskIdFor(key)))?.remove();

    const recomputed = jobMatched(tenantId, postingId, 3);
    await h.publish(recomputed);
    await h.spy.waitForHandled(recomputed.id);
    // The intent is already sent: the handler adds no task for it, so nothing can send it again.
    expect(await h.taskState(key)).toBeUndefined();
    expect((await h.notification(key))?.status).toBe('sent');
    expect(h.smtp.byKey(key)).toHaveLength(1);
  });

  it('erases the personal data of settled notifications after the retention, deletes them once their intent cannot recur', async () => {
    const tenantId = randomUUID();
    const posting = jobPosted(tenantId);
    const key = idempotencyKey('job-matched', posting.data.jobId);
    await h.publish(posting);
    await h.publish(jobMatched(tenantId, posting.data.jobId, 1));
    await waitForSent(h, [key]);
    const em = h.deps.orm.em.fork();

    await pruneNotificationLog(em, { olderThanMs: 180 * DAY });
    expect(await h.notification(key)).toMatchObject({ status: 'sent', recipient: posting.data.contactEmail });
    await age(key, 500);
    await em.execute(
      `UPDATE notification_log SET keep_until = keep_until - interval '500 days' WHERE key = ?`,
      [key],
    );
    await pruneNotificationLog(em, { olderThanMs: 180 * DAY });
    expect(await h.notification(key)).toBeUndefined();
  });

  it('the stuck-intent sweep sends an intent whose old task is still kept as completed', async () => {
    const tenantId = randomUUID();
    const posting = jobPosted(tenantId);
    const key = idempotencyKey('job-matched', posting.data.jobId);
    await h.publish(posting);
    await h.publish(jobMatched(tenantId, posting.data.jobId, 1));
    await waitForSent(h, [key]);
    // The log row is written before BullMQ moves the task to completed: wait for the move.
    await waitFor(async () => (await h.taskState(key)) === 'completed', { message: `task ${key} completed` });
    // The intent is queued again (say its row was lost and recorded anew) while BullMQ still keeps the old task.
    const em = h.deps.orm.em.fork();
    await em.execute(
      `UPDATE notification_log SET status = 'queued', updated_at = now() - interval '1 hour' WHERE key = ?`,
      [key],
    );
    await em.execute('DELETE FROM processed_message WHERE key = ?', [key]);
    expect(await requeueStuckEmails(em, h.emails, { olderThanMs: 60_000 })).toEqual([key]);
    await waitForSent(h, [key]);
    expect(h.smtp.byKey(key)).toHaveLength(2);
  });
});
