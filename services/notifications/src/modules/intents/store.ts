// The notification log's data access: every statement on notification_log.
import { executePrepared, type Sql } from '@hireflow/db';
import { IdempotencyInProgressError } from '@hireflow/idempotency';
import type { NotificationStatus, TemplateName } from '../../db/notification-log.ts';
import {
  ADDRESS_LOCK,
  ADMISSION_COLUMNS,
  type AdmissionCheck,
  type AdmissionRow,
  admissionCtes,
  admissionOf,
} from '../quotas/store.ts';
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
 * The INSERT that records an intent as `queued`, keeping a key already
 * recorded with its row and params. One exception: a posting's summary is
 * about its first computation, and standard queues do not keep order, so
 * while it is still queued an earlier computation (smaller `computedAt`) that
 * arrives late takes its params. Returns `inserted`: true when it recorded
 * the intent (an insert, not that update). `from`: a FROM clause for the
 * values (ADDRESS_LOCK), or ''. Parameters: intentParams, then the clause's.
 */
export const intentInsert = (from: string) =>
  `INSERT INTO notification_log (key, tenant_id, event_id, recipient, template, params, message_id, keep_until)
     SELECT ?::text, ?::uuid, ?::uuid, ?::text, ?::text, ?::jsonb, ?::text, ?::timestamptz ${from}
     ON CONFLICT (key) DO UPDATE
       SET params = EXCLUDED.params, event_id = EXCLUDED.event_id, updated_at = now()
       WHERE notification_log.template = 'job-matched' AND EXCLUDED.template = 'job-matched'
         AND notification_log.status IN ('queued', 'unconfirmed')
         AND (EXCLUDED.params->>'computedAt')::timestamptz
             < (notification_log.params->>'computedAt')::timestamptz
     RETURNING (xmax = 0) AS inserted`;

export const intentParams = (intent: EmailIntent): unknown[] => [
  intent.key,
  intent.tenantId,
  intent.eventId,
  intent.recipient,
  intent.template,
  JSON.stringify(intent.params),
  messageIdFor(intent.key),
  intent.keepUntil,
];

/**
 * Records the intent as `queued` (intentInsert) without admitting it (a
 * summary that waits for its contact address; the inbox's new intents go
 * through recordAndCheck). A welcome email first takes its address's lock,
 * in the same statement. True when this call recorded it.
 */
export async function recordIntent(em: Sql, intent: EmailIntent): Promise<boolean> {
  const welcome = intent.template === 'welcome';
  // Prepared (one text per lock clause).
  const rows = await executePrepared<{ inserted: boolean }>(em, intentInsert(welcome ? ADDRESS_LOCK : ''), [
    ...intentParams(intent),
    ...(welcome ? [intent.recipient] : []),
  ]);
  return rows[0]?.inserted === true;
}

// The inbox's write of a new email intent: the row and the admission check in one
// statement (one round trip in the receive batch's transaction instead of two).

export interface AdmissionLimits {
  welcomeWithinMs: number;
  welcomeCap: number;
  quota: number;
  recipientCap: number;
}

/**
 * Records the intent as `queued` (intentInsert) and, when this call recorded
 * it, runs the admission check on it (admissionCtes), in one statement:
 * `check` is undefined when the key was recorded before (nothing was taken).
 *
 * A welcome email's count of recent welcomes must see every welcome
 * committed before it, so its address's lock must be held before this
 * statement starts: `addressLocked` says an earlier statement of the
 * transaction took it (the candidate's upsert, upsertCandidate); without it
 * this takes the lock first, in a statement of its own.
 */
export async function recordAndCheck(
  em: Sql,
  intent: EmailIntent,
  limits: AdmissionLimits,
  options: { addressLocked?: boolean } = {},
): Promise<{ recorded: boolean; check?: AdmissionCheck }> {
  if (intent.template === 'welcome' && !options.addressLocked) await lockAddress(em, intent.recipient);
  const admission = admissionCtes('gate', intent, limits);
  const [row] = await executePrepared<{ inserted: boolean } & AdmissionRow>(
    em,
    `WITH intent AS (
       ${intentInsert('')}
     ), gate AS (
       SELECT 1 FROM intent WHERE inserted
     ), ${admission.sql}
     SELECT coalesce((SELECT inserted FROM intent), false) AS inserted,
       ${ADMISSION_COLUMNS}`,
    [...intentParams(intent), ...admission.params],
  );
  if (!row?.inserted) return { recorded: false };
  return { recorded: true, check: admissionOf(row) };
}

/** Takes the address's lock (ADDRESS_LOCK) until the transaction ends. */
async function lockAddress(em: Sql, address: string): Promise<void> {
  await executePrepared(em, `SELECT 1 ${ADDRESS_LOCK}`, [address]);
}

export async function intentStatus(em: Sql, key: string): Promise<NotificationStatus | undefined> {
  const rows = await em.execute<{ status: NotificationStatus }[]>(
    'SELECT status FROM notification_log WHERE key = ?',
    [key],
  );
  return rows[0]?.status;
}

/** Moves an intent that was not sent to `suppressed` (never sent) or `held` (over quota), with why. */
export async function setIntentStatus(
  em: Sql,
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
export async function releaseUnconfirmed(em: Sql, tenantId: string, address: string): Promise<string[]> {
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
  em: Sql,
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
  em: Sql,
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

interface SendableRow {
  tenant_id: string;
  status: NotificationStatus;
  recipient: string;
  template: TemplateName;
  params: Record<string, unknown> | string;
  message_id: string;
  provider_message_id: string | null;
  suppressed: boolean;
}

function sendableOf(row: SendableRow): Sendable {
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

export async function findSendable(em: Sql, key: string): Promise<Sendable | undefined> {
  const [row] = await em.execute<SendableRow[]>(
    `SELECT n.tenant_id, n.status, n.recipient, n.template, n.params, n.message_id, n.provider_message_id,
            EXISTS (SELECT 1 FROM suppression s WHERE s.address = lower(n.recipient)) AS suppressed
       FROM notification_log n WHERE n.key = ?`,
    [key],
  );
  return row ? sendableOf(row) : undefined;
}

/**
 * The email worker's claim on one send, and what the send needs, in one
 * autocommitted statement: the row is locked, and when its intent is unsent
 * (`queued`, or `failed` retried by an operator) and no live holder has it
 * (no token, or its lease ran out), `token` takes it until `leaseMs` from
 * now. It replaces a claim in processed_message followed by a read of the
 * row (two round trips and two commits).
 *
 * A claim the previous release made (an `in_progress` row in processed_message
 * under the same key, while old and new workers run side by side in a rolling
 * deploy) counts as a holder too: live, it is not taken; expired, it is taken
 * over with the grace for the previous holder's record (docs/deploy.md,
 * "Upgrading across notifications' migration 1008").
 *
 * The row's lock is taken NOWAIT: a row locked by another transaction (an
 * inbox batch recording or updating the intent, a holder recording its send)
 * is held for now, and the claim says so at once (SEND_ROW_LOCKED_RETRY_MS)
 * instead of waiting out that transaction on a worker slot and a pooled
 * connection.
 */
const CLAIM_SEND_SQL = `
WITH target AS (
  SELECT key, tenant_id, status, recipient, template, params, message_id, provider_message_id,
         send_token, send_lease_until
    FROM notification_log WHERE key = ?::text FOR UPDATE NOWAIT
), legacy AS (
  SELECT max(lease_expires_at) AS lease_until
    FROM processed_message WHERE key = ?::text AND status = 'in_progress'
  HAVING count(*) > 0
), claimed AS (
  UPDATE notification_log n
     SET send_token = ?::uuid, send_lease_until = clock_timestamp() + ?::float8 * interval '1 millisecond'
    FROM target t
   WHERE n.key = t.key AND t.status IN ('queued', 'failed')
     AND (t.send_token IS NULL OR t.send_lease_until <= clock_timestamp())
     AND NOT EXISTS (SELECT 1 FROM legacy l WHERE l.lease_until > clock_timestamp())
  RETURNING n.key
)
SELECT t.tenant_id, t.status, t.recipient, t.template, t.params, t.message_id, t.provider_message_id,
       EXISTS (SELECT 1 FROM suppression s WHERE s.address = lower(t.recipient)) AS suppressed,
       EXISTS (SELECT 1 FROM claimed) AS claimed,
       (t.send_token IS NOT NULL OR EXISTS (SELECT 1 FROM legacy)) AS had_holder,
       GREATEST(0, EXTRACT(EPOCH FROM (
         GREATEST(t.send_lease_until, (SELECT lease_until FROM legacy)) - clock_timestamp())) * 1000)::float8
         AS remaining_ms
  FROM target t`;

/** What claimSend found: the notification, and whether this call holds its send now. */
export interface SendClaim {
  notification: Sendable;
  /** `token` holds the send until its lease runs out or it records or releases it. */
  claimed: boolean;
  /** Claimed from a holder whose lease ran out before it recorded or released the send. */
  takenOver: boolean;
  /** Not claimed: how long the live holder's lease still runs. */
  remainingMs: number;
}

/**
 * How soon a send whose row was locked comes back (the bound of the
 * retry-later rule's wait, which is never under 250 ms): the transactions
 * that lock the row are an inbox batch's or a single statement's, a few ms.
 */
export const SEND_ROW_LOCKED_RETRY_MS = 250;

/** Postgres' lock_not_available: a NOWAIT lock found the row locked. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Claims the send (CLAIM_SEND_SQL); undefined when the key has no row.
 * Throws IdempotencyInProgressError, as for a live holder, when another
 * transaction has the row locked: held, come back later (not an attempt).
 */
export async function claimSend(
  em: Sql,
  key: string,
  token: string,
  leaseMs: number,
): Promise<SendClaim | undefined> {
  let row: (SendableRow & { claimed: boolean; had_holder: boolean; remaining_ms: number | null }) | undefined;
  try {
    [row] = await executePrepared<
      SendableRow & { claimed: boolean; had_holder: boolean; remaining_ms: number | null }
    >(em, CLAIM_SEND_SQL, [key, key, token, leaseMs]);
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE)
      throw new IdempotencyInProgressError(key, SEND_ROW_LOCKED_RETRY_MS);
    throw error;
  }
  if (!row) return undefined;
  return {
    notification: sendableOf(row),
    claimed: row.claimed,
    takenOver: row.claimed && row.had_holder,
    remainingMs: Number(row.remaining_ms ?? 0),
  };
}

/** Pushes the send's lease `leaseMs` past now; false when `token` no longer holds it. */
export async function renewSend(em: Sql, key: string, token: string, leaseMs: number): Promise<boolean> {
  const rows = await executePrepared<{ held: number }>(
    em,
    `UPDATE notification_log SET send_lease_until = clock_timestamp() + ?::float8 * interval '1 millisecond'
      WHERE key = ?::text AND send_token = ?::uuid RETURNING 1 AS held`,
    [leaseMs, key, token],
  );
  return rows.length > 0;
}

/** Gives the send up without recording anything (nothing was sent): the next run claims it at once. */
export async function releaseSend(em: Sql, key: string, token: string): Promise<void> {
  await executePrepared(
    em,
    `UPDATE notification_log SET send_token = NULL, send_lease_until = NULL
      WHERE key = ?::text AND send_token = ?::uuid`,
    [key, token],
  );
}

/**
 * The write that closes the duplicate window: the email worker runs it,
 * autocommitted, right after the SMTP server said 250. It records the send
 * and ends this holder's claim in one statement, and commits whoever holds
 * the claim (a holder that lost it still records a real send, and leaves the
 * new holder's claim to it); false when `token` no longer held it.
 */
export async function markSent(
  em: Sql,
  key: string,
  token: string,
  accepted: AcceptedEmail,
): Promise<boolean> {
  const [row] = await executePrepared<{ held: boolean }>(
    em,
    // The sub-select locks the row and keeps the holder before the update (RETURNING sees only new values).
    `UPDATE notification_log n
        SET status = 'sent', attempts = n.attempts + 1, provider_message_id = ?::text, message_id = ?::text,
            sent_at = now(), error = NULL, updated_at = now(),
            send_lease_until = CASE WHEN n.send_token = ?::uuid THEN NULL ELSE n.send_lease_until END,
            send_token = CASE WHEN n.send_token = ?::uuid THEN NULL ELSE n.send_token END
       FROM (SELECT key, send_token AS holder FROM notification_log WHERE key = ?::text FOR UPDATE) h
      WHERE n.key = h.key
     RETURNING h.holder IS NOT DISTINCT FROM ?::uuid AS held`,
    [accepted.providerMessageId, accepted.messageId, token, token, key, token],
  );
  return row?.held === true;
}

/**
 * Counts a failed SMTP attempt and releases the attempt's claim; `final`
 * (permanent, or the last attempt) marks the email failed. Returns its template (for the metrics), undefined when
 * the key has no row or was sent meanwhile.
 */
export async function markAttemptFailed(
  em: Sql,
  key: string,
  error: string,
  final: boolean,
  /** The claim this attempt held, released by the same statement (none when it never claimed). */
  token?: string,
): Promise<TemplateName | undefined> {
  const rows = await em.execute<{ template: TemplateName }[]>(
    `UPDATE notification_log
        SET attempts = attempts + 1, error = ?, updated_at = now(),
            status = CASE WHEN ? AND status IN ('queued', 'failed') THEN 'failed' ELSE status END,
            send_lease_until = CASE WHEN send_token = ?::uuid THEN NULL ELSE send_lease_until END,
            send_token = CASE WHEN send_token = ?::uuid THEN NULL ELSE send_token END
      WHERE key = ? AND status <> 'sent'
      RETURNING template`,
    [error.slice(0, 2000), final, token ?? null, token ?? null, key],
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
  em: Sql,
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
  em: Sql,
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
    // Ordered by the column: a bare `id` would name the text alias and sort '100' below '99',
    // so the page after one ending at 98 began below it and left 100 out.
    `SELECT id::text AS id, key, recipient, template, status, attempts, message_id, provider_message_id,
            error, created_at, updated_at, sent_at
       FROM notification_log
      WHERE lower(recipient) = lower(?)${filters}
      ORDER BY notification_log.id DESC
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
