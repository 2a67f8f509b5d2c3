// The notification log's data access: every statement on notification_log.
import type { EntityManager } from '@hireflow/db';
import {
  NotificationLog,
  type NotificationLogEntity,
  type NotificationStatus,
  type TemplateName,
} from '../../db/entities.ts';
import { type AcceptedEmail, messageIdFor } from '../email/mailer.ts';
import type { TemplateParams } from '../email/templates.ts';

/** An email the service decided to send: one row per intent key, whatever the number of events asking. */
export interface EmailIntent<T extends TemplateName = TemplateName> {
  key: string;
  tenantId: string;
  eventId: string;
  recipient: string;
  template: T;
  params: TemplateParams[T];
  /** Until when the record is kept, so no later event can make the same email again (retention.ts). */
  keepUntil: Date;
}

/**
 * Records the intent as `queued`; a key already recorded keeps its row and
 * params. One exception: a posting's summary is about its first computation,
 * and standard queues do not keep order, so while it is still queued an
 * earlier computation (smaller `computedAt`) that arrives late takes its
 * params. True when this call recorded it (an insert, not that update).
 */
export async function recordIntent(em: EntityManager, intent: EmailIntent): Promise<boolean> {
  const rows = await em.execute<{ inserted: boolean }[]>(
    `INSERT INTO notification_log (key, tenant_id, event_id, recipient, template, params, message_id, keep_until)
     VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?)
     ON CONFLICT (key) DO UPDATE
       SET params = EXCLUDED.params, event_id = EXCLUDED.event_id, updated_at = now()
       WHERE notification_log.template = 'job-matched' AND EXCLUDED.template = 'job-matched'
         AND notification_log.status = 'queued'
         AND (EXCLUDED.params->>'computedAt')::timestamptz
             < (notification_log.params->>'computedAt')::timestamptz
     RETURNING (xmax = 0) AS inserted`,
    [
      intent.key,
      intent.tenantId,
      intent.eventId,
      intent.recipient,
      intent.template,
      JSON.stringify(intent.params),
      messageIdFor(intent.key),
      intent.keepUntil,
    ],
  );
  return rows[0]?.inserted === true;
}

export async function intentStatus(em: EntityManager, key: string): Promise<NotificationStatus | undefined> {
  const rows = await em.execute<{ status: NotificationStatus }[]>(
    'SELECT status FROM notification_log WHERE key = ?',
    [key],
  );
  return rows[0]?.status;
}

/** Moves an intent that was not sent to `suppressed` (never sent) or `held` (over quota), with why. */
export async function setIntentStatus(
  em: EntityManager,
  key: string,
  status: 'suppressed' | 'held' | 'queued',
  reason: string | null,
): Promise<void> {
  await em.execute(
    `UPDATE notification_log SET status = ?, error = ?, updated_at = now() WHERE key = ? AND status <> 'sent'`,
    [status, reason, key],
  );
}

/**
 * Serialises intents to one address for the rest of the transaction (the
 * welcome cap counts them): two tenants registering it at once wait in turn.
 */
export async function lockAddress(em: EntityManager, address: string): Promise<void> {
  await em.execute('SELECT pg_advisory_xact_lock(hashtextextended(lower(?), 7))', [address]);
}

/** Welcome emails to this address (any tenant) recorded within `withinMs`, other than `key`, not refused. */
export async function recentWelcomes(
  em: EntityManager,
  address: string,
  options: { withinMs: number; exceptKey: string },
): Promise<number> {
  const rows = await em.execute<{ n: string }[]>(
    `SELECT count(*) AS n FROM notification_log
      WHERE template = 'welcome' AND lower(recipient) = lower(?) AND key <> ? AND status <> 'suppressed'
        AND created_at > now() - ? * interval '1 millisecond'`,
    [address, options.exceptKey, options.withinMs],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Takes one email of the tenant's quota for today (UTC); false when today's quota is used up. */
export async function takeDailyQuota(em: EntityManager, tenantId: string, quota: number): Promise<boolean> {
  const rows = await em.execute<{ used: number }[]>(
    `INSERT INTO tenant_email_quota (tenant_id, day, used) VALUES (?, (now() AT TIME ZONE 'utc')::date, 1)
     ON CONFLICT (tenant_id, day) DO UPDATE SET used = tenant_email_quota.used + 1
       WHERE tenant_email_quota.used < ?
     RETURNING used`,
    [tenantId, quota],
  );
  return rows.length > 0;
}

/** Held intents, oldest first: what a new day's quota may release. */
export function heldIntents(
  em: EntityManager,
  limit: number,
): Promise<{ key: string; tenant_id: string; template: TemplateName }[]> {
  return em.execute<{ key: string; tenant_id: string; template: TemplateName }[]>(
    `SELECT key, tenant_id, template FROM notification_log WHERE status = 'held' ORDER BY created_at LIMIT ?`,
    [limit],
  );
}

/** Intents still queued `olderThanMs` after their last change, oldest first. */
export function stuckIntents(
  em: EntityManager,
  options: { olderThanMs: number; limit: number },
): Promise<{ key: string; template: TemplateName }[]> {
  return em.execute<{ key: string; template: TemplateName }[]>(
    `SELECT key, template FROM notification_log
      WHERE status = 'queued' AND updated_at < now() - ? * interval '1 millisecond'
      ORDER BY updated_at LIMIT ?`,
    [options.olderThanMs, options.limit],
  );
}

export function findNotification(em: EntityManager, key: string): Promise<NotificationLogEntity | null> {
  return em.findOne(NotificationLog, { key });
}

/**
 * The write that closes the duplicate window: one autocommitted statement
 * right after the SMTP server said 250.
 */
export async function markSent(em: EntityManager, key: string, accepted: AcceptedEmail): Promise<void> {
  await em.execute(
    `UPDATE notification_log
        SET status = 'sent', attempts = attempts + 1, provider_message_id = ?, message_id = ?,
            sent_at = now(), error = NULL, updated_at = now()
      WHERE key = ?`,
    [accepted.providerMessageId, accepted.messageId, key],
  );
}

/** Counts a failed SMTP attempt; `final` (permanent, or the last attempt) marks the email failed. */
export async function markAttemptFailed(
  em: EntityManager,
  key: string,
  error: string,
  final: boolean,
): Promise<void> {
  await em.execute(
    `UPDATE notification_log
        SET attempts = attempts + 1, error = ?, updated_at = now(),
            status = CASE WHEN ? THEN 'failed' ELSE status END
      WHERE key = ? AND status <> 'sent'`,
    [error.slice(0, 2000), final, key],
  );
}

/** A job BullMQ gave up on without an attempt of ours failing (it stalled too often). */
export async function markFailed(em: EntityManager, key: string, error: string): Promise<void> {
  await em.execute(
    `UPDATE notification_log SET status = 'failed', error = ?, updated_at = now()
      WHERE key = ? AND status = 'queued'`,
    [error.slice(0, 2000), key],
  );
}

/**
 * Retention of the log, batch by batch: settled notifications (sent or
 * failed) lose their personal data (recipient, template parameters) once
 * their last change is older than `olderThanMs`, and the row itself (key,
 * status) goes only once its intent can no longer recur (`keep_until`), so a
 * late event finds the email already sent. Queued rows are never touched.
 * Returns how many rows were scrubbed and deleted.
 */
export async function pruneNotificationLog(
  em: EntityManager,
  options: { olderThanMs: number; batchSize?: number },
): Promise<{ scrubbed: number; deleted: number }> {
  const batchSize = options.batchSize ?? 1000;
  const total = { scrubbed: 0, deleted: 0 };
  const batches = [
    {
      counter: 'scrubbed' as const,
      sql: `UPDATE notification_log SET recipient = '', params = '{}'::jsonb WHERE id IN (
              SELECT id FROM notification_log
               WHERE status IN ('sent', 'failed') AND recipient <> ''
                 AND updated_at < now() - ? * interval '1 millisecond'
               LIMIT ?)`,
      params: [options.olderThanMs, batchSize],
    },
    {
      counter: 'deleted' as const,
      sql: `DELETE FROM notification_log WHERE id IN (
              SELECT id FROM notification_log
               WHERE status IN ('sent', 'failed') AND keep_until < now()
               LIMIT ?)`,
      params: [batchSize],
    },
  ];
  for (const batch of batches) {
    while (true) {
      const { affectedRows } = await em.execute<{ affectedRows: number }>(batch.sql, batch.params, 'run');
      total[batch.counter] += affectedRows;
      if (affectedRows < batchSize) break;
    }
  }
  return total;
}

interface LogRow {
  id: string;
  key: string;
  recipient: string;
  template: TemplateName;
  status: NotificationStatus;
  attempts: number;
  message_id: string;
  provider_message_id: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
}

export interface NotificationView {
  key: string;
  recipient: string;
  template: TemplateName;
  status: NotificationStatus;
  attempts: number;
  messageId: string;
  providerMessageId: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** A recipient's notifications, newest first (case-insensitive address), keyset-paged by row id. */
export async function listByRecipient(
  em: EntityManager,
  query: {
    recipient: string;
    status?: NotificationStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<{ items: NotificationView[]; nextCursor: string | null }> {
  const params: unknown[] = [query.recipient];
  let filters = '';
  if (query.status) {
    filters += ' AND status = ?';
    params.push(query.status);
  }
  if (query.cursor) {
    filters += ' AND id < ?';
    params.push(query.cursor);
  }
  params.push(query.limit + 1);
  const rows = await em.execute<LogRow[]>(
    `SELECT id::text AS id, key, recipient, template, status, attempts, message_id, provider_message_id,
            error, created_at, updated_at, sent_at
       FROM notification_log
      WHERE lower(recipient) = lower(?)${filters}
      ORDER BY id DESC
      LIMIT ?`,
    params,
  );
  const items = rows.slice(0, query.limit);
  return {
    items: items.map((r) => ({
      key: r.key,
      recipient: r.recipient,
      template: r.template,
      status: r.status,
      attempts: r.attempts,
      messageId: r.message_id,
      providerMessageId: r.provider_message_id,
      error: r.error,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
      sentAt: r.sent_at ? iso(r.sent_at) : null,
    })),
    nextCursor: rows.length > query.limit ? (items.at(-1)?.id ?? null) : null,
  };
}
