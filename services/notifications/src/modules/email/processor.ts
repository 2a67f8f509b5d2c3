import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Database, Sql } from '@hireflow/db';
import { IdempotencyInProgressError, IdempotencyLeaseLostError, startHeartbeat } from '@hireflow/idempotency';
import { fullJitter, isPermanent, type Logger, PermanentError, retryLaterOf } from '@hireflow/messaging';
import { createTaskWorker, type TaskWorker, type TaskWorkerOptions } from '@hireflow/messaging/tasks';
import { signals } from '@hireflow/telemetry';
import type { TemplateName } from '../../db/notification-log.ts';
import { EMAIL_QUEUE, type EmailTask } from '../intents/email-queue.ts';
import {
  claimSend,
  findSendable,
  markAttemptFailed,
  markSent,
  releaseSend,
  renewSend,
  type Sendable,
  setIntentStatus,
} from '../intents/store.ts';
import type { AcceptedEmail, Mailer } from './mailer.ts';
import { type RenderLinks, render, type TemplateParams } from './templates.ts';

/**
 * How long a send may hold its key without renewing (renewed every half).
 * A holder that dies is taken over once it runs out; BullMQ's own lock
 * (30 s) brings the task back later than that, so a restarted worker never
 * waits on a dead holder's lease.
 */
export const SEND_LEASE_MS = 15_000;

/**
 * How long a send that took over an unfinished claim waits for the previous
 * holder's record before sending: a holder that could not reach Postgres
 * after the SMTP accept retries its record at most 2 s apart
 * (RECORD_BACKOFF), so a live one lands it well within this.
 */
export const TAKEOVER_GRACE_MS = SEND_LEASE_MS / 2;

/** How often the waiting send reads the notification log again. */
const TAKEOVER_POLL_MS = 250;

/** What the first successful run saw; a replay (wrapper or log) returns the same ids. */
export type SendResult = AcceptedEmail;

/** One email accepted by the SMTP server and recorded; times are epoch ms with sub-ms precision. */
export interface SentEmail {
  key: string;
  /** nodemailer resolved: the server's 250 reached us. */
  acceptedAt: number;
  /** The log write committed: from here on, a retry cannot send again. */
  loggedAt: number;
}

export interface EmailWorkerOptions {
  /** Emails of one tenant sent at once across all workers (0: no limit; docs/fairness.md). */
  tenantConcurrency?: number;
  /** Slots beyond `concurrency` for an email that jumps a line (docs/fairness.md). */
  headroom?: number;
  orm: Database;
  mailer: Mailer;
  /** Redis URL: the worker opens (and quits) its own blocking connection. */
  connection: string;
  prefix: string;
  concurrency: number;
  /** The provider's limit, shared by every worker of the queue. */
  rateLimit: { max: number; duration: number };
  /** How often the worker looks for tasks whose worker died (their 30 s BullMQ lock ran out). */
  stalledCheckMs: number;
  /** How long a dead worker's task stays locked before another worker retries it. */
  lockDurationMs: number;
  /** How long close() waits for running sends before it abandons them (they come back as stalled). */
  closeTimeoutMs?: number;
  backoff: { base: number; cap: number };
  /** How long to keep trying to record a send the SMTP server accepted (a database failover). */
  recordRetryMs: number;
  /** The one-click unsubscribe link of a recipient (RFC 8058), carried by every email. */
  unsubscribeUrl: (recipient: string) => string;
  /** The link that confirms a tenant's contact address (the contact-confirmation email). */
  confirmUrl: (tenantId: string, recipient: string) => string;
  log: Logger;
  onSent?: (sent: SentEmail) => void;
  /** The send lease (default SEND_LEASE_MS; shorter in tests). */
  leaseMs?: number;
  /** How long a send that took over an unfinished claim waits for its previous holder's record (default TAKEOVER_GRACE_MS). */
  takeoverGraceMs?: number;
  /** Told when a send took over an unfinished claim and starts waiting for the previous holder's record (tests). */
  onTakeover?: (key: string) => void;
}

const now = () => performance.timeOrigin + performance.now();

type Processor = TaskWorkerOptions<EmailTask, SendResult>['processor'];
type EmailTaskOf = Parameters<Processor>[0];

/**
 * Sends each email at most once per intent key, whatever BullMQ retries:
 *
 * 1. one statement claims the send on the notification log row and reads
 *    what the send needs (claimSend): one holder at a time, with a lease
 *    renewed every half while it runs; a holder that died is taken over
 *    once its lease runs out; a row already `sent` (or refused, or held)
 *    returns its stored ids and sends nothing; a row held by a live holder
 *    is retried later (IdempotencyInProgressError), as is one whose row
 *    another transaction has locked (claimSend takes the lock NOWAIT);
 * 2. SMTP, then at once one autocommitted UPDATE to `sent` that also ends
 *    the claim (markSent).
 *
 * A claim taken over from a holder whose lease ran out (takenOver) first
 * gives that holder TAKEOVER_GRACE_MS to land its record: a holder cut off
 * from Postgres after the SMTP accept can neither renew its lease nor record
 * the send, and when Redis lost the task meanwhile (its BullMQ lock with
 * it), a re-added task takes the expired claim over the moment Postgres is
 * back, racing the holder's next record attempt.
 *
 * The only duplicate: a process that dies after the server accepted the
 * message and before step 2 committed (or that cannot record it for
 * `recordRetryMs`). The retry sends the same Message-ID and
 * X-Idempotency-Key, so a provider or a mail client can still drop it.
 */
export function emailProcessor(
  options: Pick<
    EmailWorkerOptions,
    | 'orm'
    | 'mailer'
    | 'log'
    | 'onSent'
    | 'recordRetryMs'
    | 'unsubscribeUrl'
    | 'confirmUrl'
    | 'leaseMs'
    | 'takeoverGraceMs'
    | 'onTakeover'
  >,
) {
  const { orm, mailer, log } = options;
  const leaseMs = options.leaseMs ?? SEND_LEASE_MS;
  const graceMs = options.takeoverGraceMs ?? TAKEOVER_GRACE_MS;
  return async (task: EmailTaskOf): Promise<SendResult> => {
    const { key } = task.data;
    const em = orm.em.fork();
    const token = randomUUID();
    let held = false;
    try {
      const claim = await claimSend(em, key, token, leaseMs);
      if (!claim) throw new PermanentError(`no notification is recorded under ${key}`);
      let notification: Sendable | undefined = claim.notification;
      // Sent by an earlier holder, or refused (suppressed) or held: nothing to send now.
      if (!isUnsent(notification.status)) {
        // What the idempotency wrapper counted when it held this claim: a send not run again.
        if (notification.status === 'sent') signals.idempotency.publish({ outcome: 'duplicate' });
        return storedResult(notification);
      }
      if (!claim.claimed) throw new IdempotencyInProgressError(key, claim.remainingMs);
      held = true;
      const lease = new AbortController();
      const stopHeartbeat = startHeartbeat(
        () => renewSend(em, key, token, leaseMs),
        leaseMs,
        () => lease.abort(new IdempotencyLeaseLostError(key)),
      );
      try {
        if (claim.takenOver) {
          options.onTakeover?.(key);
          notification = await awaitPreviousHolder(em, key, notification, graceMs, lease.signal);
          if (!notification) throw new PermanentError(`no notification is recorded under ${key}`);
          if (!isUnsent(notification.status)) {
            // The previous holder's record landed, or the row was refused meanwhile.
            await releaseSend(em, key, token);
            held = false;
            return storedResult(notification);
          }
        }
        // `failed` runs only when an operator retried the dead letter (`pnpm dlq
        // retry`): no SMTP accept was ever recorded for it, so it is sent now.
        if (notification.suppressed) {
          // The address unsubscribed after this email was decided.
          await setIntentStatus(em, key, 'suppressed', 'the recipient unsubscribed');
          await releaseSend(em, key, token);
          held = false;
          signals.email.publish({ outcome: 'suppressed', template: notification.template });
          return { messageId: notification.messageId, providerMessageId: '' };
        }
        const unsubscribeUrl = options.unsubscribeUrl(notification.recipient);
        const confirmUrl =
          notification.template === 'contact-confirmation'
            ? options.confirmUrl(notification.tenantId, notification.recipient)
            : undefined;
        const content = renderStored(notification.template, notification.params, {
          unsubscribeUrl,
          confirmUrl,
        });
        // Taken over while it waited (its process stalled past the lease): the new holder sends.
        if (lease.signal.aborted) throw new IdempotencyLeaseLostError(key);
        const accepted = await mailer.send({ key, to: notification.recipient, unsubscribeUrl, ...content });
        const acceptedAt = now();
        stopHeartbeat();
        // The log write and the end of the claim in one autocommitted statement.
        const stillHeld = await recordSent(() => markSent(em, key, token, accepted), key, {
          retryMs: options.recordRetryMs,
          log,
        });
        held = false;
        signals.email.publish({ outcome: 'sent', template: notification.template });
        options.onSent?.({ key, acceptedAt, loggedAt: now() });
        // Recorded, but the claim had been taken over meanwhile: as the wrapper's fenced completion.
        if (!stillHeld) throw new IdempotencyLeaseLostError(key);
        return accepted;
      } finally {
        stopHeartbeat();
      }
    } catch (error) {
      // A live holder has the send, or its row is locked by another transaction (claimSend).
      if (error instanceof IdempotencyInProgressError)
        signals.idempotency.publish({ outcome: 'in-progress' });
      // Another holder is sending this key, or took it over: not an attempt of
      // ours, nothing to record. The worker's retry-later rule brings it back.
      if (retryLaterOf(error)) {
        if (held) await releaseSend(orm.em.fork(), key, token).catch(() => undefined);
        throw error;
      }
      const final = isPermanent(error) || task.attemptsMade + 1 >= (task.opts.attempts ?? 1);
      const reason = (error as Error)?.message ?? String(error);
      // Counted and, when this run held the send, released in one statement.
      const template = await markAttemptFailed(
        orm.em.fork(),
        key,
        reason,
        final,
        held ? token : undefined,
      ).catch((logError: unknown) => {
        log.error({ err: logError, key }, 'could not record a failed attempt');
        return undefined;
      });
      if (final) {
        log.warn({ key, reason, attempts: task.attemptsMade + 1 }, 'email failed for good');
        signals.email.publish({ outcome: 'failed', template: template ?? 'unknown' });
      }
      throw error;
    }
  };
}

/** What a send that sends nothing returns: the ids the log has. */
function storedResult(notification: Sendable): SendResult {
  return { messageId: notification.messageId, providerMessageId: notification.providerMessageId ?? '' };
}

/** Not sent, not refused: `queued`, or `failed` (an operator retried the dead letter). */
const isUnsent = (status: Sendable['status']) => status === 'queued' || status === 'failed';

/**
 * The previous holder of a claim taken over may have sent the email and be
 * retrying its record (markSent commits even once the claim is lost): read the
 * log every TAKEOVER_POLL_MS until it says sent (or anything but unsent) or
 * `graceMs` has passed. Returns what the log says last.
 */
async function awaitPreviousHolder(
  em: Sql,
  key: string,
  seen: Sendable,
  graceMs: number,
  signal: AbortSignal,
): Promise<Sendable | undefined> {
  const deadline = Date.now() + graceMs;
  let current: Sendable | undefined = seen;
  while (current && isUnsent(current.status) && Date.now() < deadline && !signal.aborted) {
    await delay(Math.min(TAKEOVER_POLL_MS, Math.max(0, deadline - Date.now())));
    current = await findSendable(em, key);
  }
  return current;
}

/**
 * The server has the message: that fact must be recorded, or the retry sends
 * it again. A Postgres failover takes 30–120 s, so the record is retried
 * (full-jitter backoff, at most 2 s apart) for up to `retryMs`, while this
 * worker still holds the task: BullMQ keeps renewing its lock on Redis, so no
 * other worker can take the task meanwhile.
 */
async function recordSent(
  record: () => Promise<boolean>,
  key: string,
  options: { retryMs: number; log: Logger },
): Promise<boolean> {
  const giveUpAt = Date.now() + options.retryMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await record();
    } catch (error) {
      if (Date.now() >= giveUpAt) throw error;
      options.log.warn({ err: error, key, attempt }, 'recording a sent email failed; trying again');
      await delay(Math.max(50, fullJitter(attempt, RECORD_BACKOFF)));
    }
  }
}

/** Milliseconds between tries to record a send: the bound doubles from 100 ms to 2 s. */
const RECORD_BACKOFF = { base: 100, cap: 2000 };

function renderStored(template: TemplateName, params: Record<string, unknown>, links: RenderLinks) {
  // The params were written from the same TemplateParams type when the intent was recorded.
  return render(template, params as unknown as TemplateParams[typeof template], links);
}

/** The BullMQ worker of the `email` queue: concurrency, the provider's rate limit, full-jitter retries. */
export function startEmailWorker(options: EmailWorkerOptions): TaskWorker<EmailTask, SendResult> {
  return createTaskWorker<EmailTask, SendResult>({
    name: EMAIL_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    headroom: options.headroom ?? 0,
    backoff: options.backoff,
    limiter: options.rateLimit,
    stalledIntervalMs: options.stalledCheckMs,
    lockDurationMs: options.lockDurationMs,
    ...(options.closeTimeoutMs ? { closeTimeoutMs: options.closeTimeoutMs } : {}),
    logger: options.log,
    tracerName: '@hireflow/notifications',
    processor: emailProcessor(options),
    ...(options.tenantConcurrency
      ? { tenantLimit: { max: options.tenantConcurrency, tenantOf: (task: EmailTask) => task.tenantId } }
      : {}),
  });
}
