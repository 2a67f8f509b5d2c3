import { setTimeout as delay } from 'node:timers/promises';
import type { EntityManager, MikroORM } from '@hireflow/db';
import { IdempotencyLeaseLostError, idempotent } from '@hireflow/idempotency';
import {
  createTaskWorker,
  fullJitter,
  isPermanent,
  type Logger,
  PermanentError,
  retryLaterOf,
  type TaskWorker,
  type TaskWorkerOptions,
} from '@hireflow/messaging';
import { signals } from '@hireflow/telemetry';
import type { TemplateName } from '../../db/entities.ts';
import { EMAIL_QUEUE, type EmailTask } from '../intents/email-queue.ts';
import {
  findSendable,
  markAttemptFailed,
  markSentStatement,
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
  orm: MikroORM;
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
 * 1. the idempotency wrapper claims the key (one holder at a time; a dead
 *    holder's lease runs out and the retry takes over; a completed key
 *    replays its result without sending);
 * 2. inside the claim the notification log is read: `sent` means a previous
 *    holder got as far as the log write, so nothing is sent (this covers a
 *    crash between the log write and the wrapper's completion, and keys
 *    older than the wrapper's retention);
 * 3. SMTP, then at once one autocommitted UPDATE to `sent`.
 *
 * A claim taken over from a holder whose lease ran out (claim.takenOver)
 * first gives that holder TAKEOVER_GRACE_MS to land its record: a holder cut
 * off from Postgres after the SMTP accept can neither renew its lease nor
 * record the send, and when Redis lost the task meanwhile (its BullMQ lock
 * with it), a re-added task takes the expired claim over the moment Postgres
 * is back, racing the holder's next record attempt.
 *
 * The only duplicate: a process that dies after the server accepted the
 * message and before step 3 committed (or that cannot record it for
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
    try {
      return await idempotent(orm, { key, leaseMs }, async (em, claim) => {
        // The notification and its recipient's suppression in one read.
        let notification = await findSendable(em, key);
        if (claim.takenOver && notification && isUnsent(notification.status)) {
          options.onTakeover?.(key);
          notification = await awaitPreviousHolder(em, key, notification, graceMs, claim.signal);
        }
        if (!notification) throw new PermanentError(`no notification is recorded under ${key}`);
        // `failed` runs only when an operator retried the dead letter (`pnpm dlq
        // retry`): no SMTP accept was ever recorded for it, so it is sent now.
        if (!isUnsent(notification.status)) {
          // Sent by an earlier holder, or refused (suppressed) or held: nothing to send now.
          return {
            messageId: notification.messageId,
            providerMessageId: notification.providerMessageId ?? '',
          };
        }
        if (notification.suppressed) {
          // The address unsubscribed after this email was decided.
          await setIntentStatus(em, key, 'suppressed', 'the recipient unsubscribed');
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
        if (claim.signal.aborted) throw new IdempotencyLeaseLostError(key);
        const accepted = await mailer.send({ key, to: notification.recipient, unsubscribeUrl, ...content });
        const acceptedAt = now();
        // The log write and the claim's completion in one autocommitted statement.
        await recordSent(() => claim.completeWith(em, accepted, markSentStatement(key, accepted)), key, {
          retryMs: options.recordRetryMs,
          log,
        });
        signals.email.publish({ outcome: 'sent', template: notification.template });
        options.onSent?.({ key, acceptedAt, loggedAt: now() });
        return accepted;
      });
    } catch (error) {
      // Another holder is sending this key, or took it over: not an attempt of
      // ours, nothing to record. The worker's retry-later rule brings it back.
      if (retryLaterOf(error)) throw error;
      const final = isPermanent(error) || task.attemptsMade + 1 >= (task.opts.attempts ?? 1);
      const reason = (error as Error)?.message ?? String(error);
      const template = await markAttemptFailed(orm.em.fork(), key, reason, final).catch(
        (logError: unknown) => {
          log.error({ err: logError, key }, 'could not record a failed attempt');
          return undefined;
        },
      );
      if (final) {
        log.warn({ key, reason, attempts: task.attemptsMade + 1 }, 'email failed for good');
        signals.email.publish({ outcome: 'failed', template: template ?? 'unknown' });
      }
      throw error;
    }
  };
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
  em: EntityManager,
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
  record: () => Promise<void>,
  key: string,
  options: { retryMs: number; log: Logger },
): Promise<void> {
  const giveUpAt = Date.now() + options.retryMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await record();
    } catch (error) {
      // Recorded, but the claim was taken over meanwhile: nothing to try again.
      if (error instanceof IdempotencyLeaseLostError) throw error;
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
