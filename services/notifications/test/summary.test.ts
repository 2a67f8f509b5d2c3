import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import type { MessageContext } from '@hireflow/messaging';
import { describe, expect, it } from 'vitest';
import { INBOX_RESULTS_AS_DECISIONS } from '../src/db/migrations.ts';
import { notificationHandlers } from '../src/modules/intents/consumers.ts';
import { jobPosted, useNotificationsHarness, waitForSent } from './harness.ts';

// The summary to the contact address is about a posting's first computation.
// Standard queues do not keep order: a later job.matched.v1 (a candidate
// registered since) can arrive first.

const tenantId = randomUUID();
const h = useNotificationsHarness('notif-summary', { worker: false });
const context: MessageContext = {
  messageId: 'm',
  receiveCount: 1,
  queueName: 'q',
  attributes: {},
  deferredCount: 0,
  failedCount: 0,
};

const matched = (postingId: string, matchCount: number, computedAt: string) =>
  createEvent(
    'job.matched.v1',
    { jobId: postingId, tenantId, matchCount, computedAt },
    { source: 'hireflow/matching', subject: postingId },
  );

describe('the posting summary', () => {
  it('carries the first computation’s count even when a later job.matched.v1 arrived before it', async () => {
    const handlers = notificationHandlers({
      orm: h.deps.orm,
      emails: h.emails,
      wait: { baseMs: 1000, capMs: 1000 },
      replayHorizonMs: 400 * 24 * 3_600_000,
      admission: { welcomePerAddressPerDay: 3, tenantDailyQuota: 1_000, recipientDailyCap: 1_000 },
      log: h.deps.log,
    });
    const posted = jobPosted(tenantId);
    const { jobId: postingId } = posted.data;
    await handlers['job.posted.v1']!(posted, context);
    // The second computation (a fourth candidate) first, then the first one (three).
    await handlers['job.matched.v1']!(matched(postingId, 4, '2026-11-30T10:00:05.000Z'), context);
    await handlers['job.matched.v1']!(matched(postingId, 3, '2026-11-30T10:00:00.000Z'), context);
    // A third, later still, changes nothing.
    await handlers['job.matched.v1']!(matched(postingId, 5, '2026-11-30T10:00:09.000Z'), context);

    await h.startWorker();
    const key = idempotencyKey('job-matched', postingId);
    await waitForSent(h, [key]);
    const [summary] = h.smtp.byKey(key);
    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect(summary!.envelopeTo).toEqual([posted.data.contactEmail]);
    expect(summary!.parsed!.subject).toBe(`3 candidates match ${posted.data.title}`);

    // Once sent, nothing changes it: an earlier computation arriving now is too late to matter.
    await handlers['job.matched.v1']!(matched(postingId, 1, '2026-11-30T09:59:00.000Z'), context);
    const row = await h.deps.orm.em
      .fork()
      .execute<{ params: { matchCount: number } }[]>('SELECT params FROM notification_log WHERE key = ?', [
        key,
      ]);
    expect(row[0]!.params.matchCount).toBe(3);
  });
});

describe('a redelivery of an event handled before decisions carried their refusals', () => {
  it('queues the emails of the stored result (a bare list of requests), once migration 1004 converted it', async () => {
    const queued: { key: string; template: string }[] = [];
    const handlers = notificationHandlers({
      orm: h.deps.orm,
      emails: { ...h.emails, enqueue: async (requests) => void queued.push(...requests) },
      wait: { baseMs: 1000, capMs: 1000 },
      replayHorizonMs: 400 * 24 * 3_600_000,
      admission: { welcomePerAddressPerDay: 3, tenantDailyQuota: 1_000, recipientDailyCap: 1_000 },
      log: h.deps.log,
    });
    const posted = jobPosted(tenantId);
    const stored = [{ key: `welcome-email:${randomUUID()}`, template: 'welcome' }];
    await h.deps.orm.em.fork().execute(
      `INSERT INTO processed_message (key, status, fencing_token, result, created_at, completed_at, expires_at)
       VALUES (?, 'completed', nextval('processed_message_fencing_token_seq'), ?::jsonb, now(), now(), now() + interval '1 day')`,
      [posted.id, JSON.stringify(stored)],
    );
    // The service ran its migrations at start, before this row existed: the one step again.
    await h.deps.orm.em.fork().execute(INBOX_RESULTS_AS_DECISIONS);
    await handlers['job.posted.v1']!(posted, context);
    // The requests as stored, each in the lane of the event that delivered them again.
    expect(queued).toEqual(stored.map((request) => ({ ...request, lane: 'interactive' })));
  });
});
