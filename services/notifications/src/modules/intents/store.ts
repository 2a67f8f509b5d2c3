// The notification log's data access: every statement on notification_log.
import type { EntityManager } from '@hireflow/db';
import type { NotificationStatus, TemplateName } from '../../db/entities.ts';
import { type AcceptedEmail, messageIdFor } from './message-id.ts';
import type { TemplateParams } from './template-params.ts';

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
  // A welcome email first takes its address's lock, in the same statement: intents to one
  // address wait in turn for the rest of the transaction, so the welcome cap counts them all.
  const lock =
    intent.template === 'welcome'
      ? 'FROM (SELECT pg_advisory_xact_lock(hashtextextended(lower(?), 7))) AS address_lock'
      : '';
  const rows = await em.execute<{ inserted: boolean }[]>(
    `INSERT INTO notification_log (key, tenant_id, event_id, recipient, template, params, message_id, keep_until)
     SELECT ?, ?, ?, ?, ?, ?::jsonb, ?, ?::timestamptz ${lock}
     ON CONFLICT (key) DO UPDATE
       SET params = EXCLUDED.params, event_id = EXCLUDED.event_id, updated_at = now()
       WHERE notification_log.template = 'job-matched' AND EXCLUDED.template = 'job-matched'
         AND notification_log.status IN ('queued', 'unconfirmed')
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
      ...(intent.template === 'welcome' ? [intent.recipient] : []),
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
  status: 'suppressed' | 'held' | 'queued' | 'unconfirmed',
  reason: string | null,
): Promise<void> {
  await em.execute(
    `UPDATE notification_log SET status = ?, error = ?, updated_at = now() WHERE key = ? AND status <> 'sent'`,
    [status, reason, key],
  );
}

/**
 * The tenant's summaries that waited for this contact address to confirm,
 * moved to `held`: from there they go out as the tenant's quota and the
 * address's cap allow (release-held). Returns their keys.
 */
export async function releaseUnconfirmed(
  em: EntityManager,
  tenantId: string,
  address: string,
): Promise<string[]> {
  const rows = await em.execute<{ key: string }[]>(
    `UPDATE notification_log SET status = 'held', error = NULL, updated_at = now()
      WHERE tenant_id = ? AND lower(recipient) = lower(?) AND status = 'unconfirmed'
      RETURNING key`,
    [tenantId, address],
  );
  return rows.map((r) => r.key);
}

/** Held intents, oldest first: what a new day's quota and cap may release. */
export function heldIntents(
  em: EntityManager,
  limit: number,
  keys?: string[],
): Promise<{ key: string; tenant_id: string; recipient: string; template: TemplateName }[]> {
  return em.execute<{ key: string; tenant_id: string; recipient: string; template: TemplateName }[]>(
    `SELECT key, tenant_id, recipient, template FROM notification_log
      WHERE status = 'held'${keys ? ' AND key IN (?)' : ''} ORDER BY created_at LIMIT ?`,
    keys ? [keys, limit] : [limit],
  );
}

/** Intents still queued `olderThanMs` after their last change, oldest first. */
export function stuckIntents(
  em: EntityManager,
  options: { olderThanMs: number; limit: number },
): Promise<{ key: string; template: TemplateName; tenant_id: string }[]> {
  return em.execute<{ key: string; template: TemplateName; tenant_id: string }[]>(
    `SELECT key, template, tenant_id FROM notification_log
      WHERE status = 'queued' AND updated_at < now() - ? * interval '1 millisecond'
      ORDER BY updated_at LIMIT ?`,
    [options.olderThanMs, options.limit],
  );
}

/** What a send needs of its notification, and whether its recipient is suppressed, in one read. */
export interface Sendable {
  tenantId: string;
  status: NotificationStatus;
  recipient: string;
  template: TemplateName;
  params: Record<string, unknown>;
  messageId: string;
  providerMessageId: string | null;
  suppressed: boolean;
}

export async function findSendable(em: EntityManager, key: string): Promise<Sendable | undefined> {
  const [row] = await em.execute<
    {
      tenant_id: string;
      status: NotificationStatus;
      recipient: string;
      template: TemplateName;
      params: Record<string, unknown> | string;
      message_id: string;
      provider_message_id: string | null;
      suppressed: boolean;
    }[]
  >(
    `SELECT n.tenant_id, n.status, n.recipient, n.template, n.params, n.message_id, n.provider_message_id,
            EXISTS (SELECT 1 FROM suppression s WHERE s.address = lower(n.recipient)) AS suppressed
       FROM notification_log n WHERE n.key = ?`,
    [key],
  );
  if (!row) return undefined;
  return {
    tenantId: row.tenant_id,
    status: row.status,
    recipient: row.recipient,
    template: row.template,
    params: typeof row.params === 'string' ? JSON.parse(row.params) : row.params,
    messageId: row.message_id,
    providerMessageId: row.provider_message_id,
    suppressed: row.suppressed,
  };
}

/**
 * The write that closes the duplicate window, as a statement: the email
 * worker runs it autocommitted right after the SMTP server said 250, folded
 * with the completion of its idempotency claim (`claim.completeWith`).
 */
export function markSentStatement(key: string, accepted: AcceptedEmail): { sql: string; params: unknown[] } {
  return {
    sql: `UPDATE notification_log
        SET status = 'sent', attempts = attempts + 1, provider_message_id = ?, message_id = ?,
            sent_at = now(), error = NULL, updated_at = now()
      WHERE key = ?`,
    params: [accepted.providerMessageId, accepted.messageId, key],
  };
}

/**
 * Counts a failed SMTP attempt; `final` (permanent, or the last attempt) marks
 * the email failed. Returns its template (for the metrics), undefined when
 * the key has no row or was sent meanwhile.
 */
export async function markAttemptFailed(
  em: EntityManager,
  key: string,
  error: string,
  final: boolean,
): Promise<TemplateName | undefined> {
  const rows = await em.execute<{ template: TemplateName }[]>(
    `UPDATE notification_log
        SET attempts = attempts + 1, error = ?, updated_at = now(),
            status = CASE WHEN ? THEN 'failed' ELSE status END
      WHERE key = ? AND status <> 'sent'
      RETURNING template`,
    [error.slice(0, 2000), final, key],
  );
  return rows[0]?.template;
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
