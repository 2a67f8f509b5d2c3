import type { MessageObserver } from '@hireflow/messaging';
import { createTaskQueue } from '@hireflow/messaging/tasks';
import { type Closeable, type ServiceDeps, startInbox } from '@hireflow/runtime';
import { type Config, SEND_RECORD_GRACE_MS } from './config.ts';
import { confirmationTokens } from './modules/contacts/token.ts';
import { createMailer } from './modules/email/mailer.ts';
import { type SentEmail, startEmailWorker } from './modules/email/processor.ts';
import { releaseHeldEmails } from './modules/email/release-held.ts';
import { requeueStuckEmails } from './modules/email/sweep.ts';
import { notificationHandlers } from './modules/intents/consumers.ts';
import { createEmailQueue, type EmailTask, emailTaskOptions } from './modules/intents/email-queue.ts';
import { pruneNotificationLog } from './modules/intents/store.ts';
import { unsubscribeTokens } from './modules/suppression/token.ts';

/** Observers a test or benchmark attaches (dependency overrides, not mocks). */
export interface WorkerHooks {
  onMessage?: MessageObserver;
  onSent?: (sent: SentEmail) => void;
}

/**
 * The notifications worker role: the inbox (projections, email intents), the
 * `email` BullMQ worker (SMTP) and housekeeping. Notifications publishes no
 * event (its topology has no topic), so the inbox runs no outbox relay.
 */
export async function startWorker(
  config: Config,
  deps: ServiceDeps,
  hooks: WorkerHooks = {},
): Promise<Closeable[]> {
  const log = deps.log.child({ role: 'worker' });
  const backoff = { base: config.EMAIL_BACKOFF_BASE_MS, cap: config.EMAIL_BACKOFF_CAP_MS };
  const emailCloseMs = config.SMTP_TIMEOUT_MS + SEND_RECORD_GRACE_MS;

  const emails = createEmailQueue(createTaskQueue<EmailTask>(emailTaskOptions(deps.redis, config, log)));
  const mailer = createMailer({
    url: config.SMTP_URL,
    from: config.EMAIL_FROM,
    poolSize: config.SMTP_POOL_SIZE,
    timeoutMs: config.SMTP_TIMEOUT_MS,
  });
  const emailWorker = startEmailWorker({
    orm: deps.orm,
    mailer,
    connection: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    concurrency: config.EMAIL_CONCURRENCY,
    tenantConcurrency: config.EMAIL_TENANT_CONCURRENCY,
    headroom: config.EMAIL_HEADROOM,
    rateLimit: { max: config.EMAIL_RATE_MAX, duration: config.EMAIL_RATE_DURATION_MS },
    stalledCheckMs: config.EMAIL_STALLED_CHECK_MS,
    lockDurationMs: config.EMAIL_LOCK_MS,
    // A send running at shutdown ends within SMTP_TIMEOUT_MS and is then
    // recorded, before the SMTP pool and the database close behind it (the
    // config refuses a SHUTDOWN_TIMEOUT_MS that cannot hold this).
    closeTimeoutMs: emailCloseMs,
    backoff,
    recordRetryMs: config.EMAIL_RECORD_RETRY_MS,
    unsubscribeUrl: unsubscribeLinks(config),
    confirmUrl: confirmationLinks(config),
    log,
    ...(hooks.onSent ? { onSent: hooks.onSent } : {}),
  });
  const inbox = await startInbox(deps, {
    handlers: notificationHandlers({
      orm: deps.orm,
      emails,
      wait: { baseMs: config.DEPENDENCY_WAIT_BASE_MS, capMs: config.DEPENDENCY_WAIT_CAP_MS },
      replayHorizonMs: config.NOTIFICATION_REPLAY_HORIZON_DAYS * 24 * 3_600_000,
      admission: {
        welcomePerAddressPerDay: config.WELCOME_EMAILS_PER_ADDRESS_PER_DAY,
        tenantDailyQuota: config.TENANT_DAILY_EMAIL_QUOTA,
        recipientDailyCap: config.EMAILS_PER_ADDRESS_PER_DAY,
      },
      confirmContacts: config.CONTACT_CONFIRMATION_REQUIRED,
      log,
    }),
    consumer: {
      concurrency: config.INBOX_CONCURRENCY,
      maxDeferMs: config.DEPENDENCY_WAIT_MAX_MS,
      fairness: config.INBOX_FAIRNESS === 'on',
      ...(hooks.onMessage ? { onMessage: hooks.onMessage } : {}),
    },
    housekeeping: [
      {
        name: 'notification-log-prune',
        intervalMs: 3_600_000,
        run: () =>
          pruneNotificationLog(deps.orm.em.fork(), {
            olderThanMs: config.NOTIFICATION_LOG_RETENTION_DAYS * 24 * 3_600_000,
          }),
      },
      {
        // An intent whose task was lost or failed by BullMQ (not by us) is sent anyway.
        name: 'requeue-stuck-emails',
        intervalMs: config.EMAIL_SWEEP_INTERVAL_MS,
        run: () =>
          requeueStuckEmails(deps.orm.em.fork(), emails, { olderThanMs: config.EMAIL_SWEEP_AFTER_MS }).then(
            (keys) => keys.length > 0 && log.warn({ keys }, 'requeued stuck emails'),
          ),
      },
      {
        // Emails held over a tenant's quota or an address's cap go out as a new day allows.
        name: 'release-held-emails',
        intervalMs: config.EMAIL_SWEEP_INTERVAL_MS,
        run: () =>
          releaseHeldEmails(deps.orm, emails, {
            tenantDailyQuota: config.TENANT_DAILY_EMAIL_QUOTA,
            recipientDailyCap: config.EMAILS_PER_ADDRESS_PER_DAY,
          }).then((keys) => keys.length > 0 && log.info({ released: keys.length }, 'released held emails')),
      },
    ],
    log,
  });

  // Running sends finish, then the SMTP pool goes.
  return inbox.closeables([
    {
      name: 'email-worker',
      close: async () => void (await emailWorker.close()),
      timeoutMs: emailCloseMs + 1000,
    },
    { name: 'email-queue', close: () => emails.close() },
    { name: 'smtp-pool', close: async () => mailer.close() },
  ]);
}

/** The one-click unsubscribe link of a recipient, under UNSUBSCRIBE_BASE_URL. */
function unsubscribeLinks(config: Config): (recipient: string) => string {
  const tokens = unsubscribeTokens(config.UNSUBSCRIBE_SIGNING_KEY);
  const base = config.UNSUBSCRIBE_BASE_URL.replace(/\/$/, '');
  return (recipient) => `${base}/v1/unsubscribe?token=${tokens.issue(recipient)}`;
}

/** The link that confirms a tenant's contact address, under UNSUBSCRIBE_BASE_URL (the service port). */
function confirmationLinks(config: Config): (tenantId: string, recipient: string) => string {
  const tokens = confirmationTokens(config.UNSUBSCRIBE_SIGNING_KEY);
  const base = config.UNSUBSCRIBE_BASE_URL.replace(/\/$/, '');
  return (tenantId, address) => `${base}/v1/contacts/confirm?token=${tokens.issue({ tenantId, address })}`;
}
