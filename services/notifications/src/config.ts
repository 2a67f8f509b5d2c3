import { randomBytes } from 'node:crypto';
import { ConfigError, headroom, positiveInt, smtpUrl, tenantConcurrency } from '@hireflow/config';
import { servicePort } from '@hireflow/contracts';
import { parseServiceConfig, serviceConfigSchema } from '@hireflow/runtime';
import { z } from 'zod';

const HOUR = 3_600_000;
/**
 * The default of earlier versions, published in this repository: anyone could
 * seal a token with it, so it is refused everywhere (docs/security.md, API8).
 */
export const PUBLISHED_SIGNING_KEY = 'hireflow-development-unsubscribe-signing-key';

/** Every variable the notifications service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('notifications').extend({
  SMTP_URL: smtpUrl(),
  SMTP_POOL_SIZE: positiveInt('SMTP connections kept open to the provider (pooled transport).', 5, 100),
  SMTP_TIMEOUT_MS: positiveInt(
    'Connection, greeting and socket timeout of an SMTP exchange; a send slower than this is retried.',
    15_000,
    600_000,
  ),
  EMAIL_FROM: z
    .string()
    .max(320)
    .refine(
      (value) => z.email().safeParse(/<([^<>]+)>\s*$/.exec(value)?.[1] ?? value.trim()).success,
      'must be an address, or a name and an address: Hireflow <no-reply@example.com>',
    )
    .default('Hireflow <no-reply@hireflow.local>')
    .describe('From header of every email.'),
  EMAIL_CONCURRENCY: positiveInt('Emails one worker process sends at once.', 10, 1000),
  EMAIL_TENANT_CONCURRENCY: tenantConcurrency('Emails of one tenant sent at once'),
  EMAIL_HEADROOM: headroom('Emails'),
  EMAIL_RATE_MAX: positiveInt(
    "Emails sent per EMAIL_RATE_DURATION_MS across all workers (the provider's rate limit).",
    50,
    1_000_000,
  ),
  EMAIL_RATE_DURATION_MS: positiveInt('Window of the email rate limit.', 1000, HOUR),
  EMAIL_SWEEP_INTERVAL_MS: positiveInt(
    'How often a worker looks for email intents stuck in queued.',
    300_000,
    HOUR,
  ),
  EMAIL_SWEEP_AFTER_MS: positiveInt(
    'An intent still queued this long after its last change has its task added again (or retried) if BullMQ lost or failed it.',
    900_000,
    24 * HOUR,
  ),
  NOTIFICATION_LOG_RETENTION_DAYS: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(16, 'must be at least 16 (longer than any redelivery of the events: SQS keeps 14 days)')
    .max(3650, 'must be at most 3650')
    .default(180)
    .describe(
      'Sent and failed notifications lose their recipient and parameters this many days after their last change; the record (key, status) stays until its intent cannot recur, so a late event never sends the email again.',
    ),
  NOTIFICATION_REPLAY_HORIZON_DAYS: positiveInt(
    "How long the producers keep their events for a replay (pnpm replay): an email intent's record is kept at least this long, so a replayed event never sends an email again. Keep it at or above the producers' EVENT_LOG_RETENTION_DAYS (365).",
    400,
    3650,
  ),
  EMAIL_LOCK_MS: positiveInt(
    "How long an email task stays locked to its worker without renewal: a dead worker's tasks are retried after it.",
    30_000,
    HOUR,
  ),
  EMAIL_STALLED_CHECK_MS: positiveInt(
    'How often a worker looks for email tasks whose worker died (their EMAIL_LOCK_MS has run out).',
    10_000,
    HOUR,
  ),
  EMAIL_ATTEMPTS: positiveInt(
    'SMTP attempts per email before it is kept as a dead letter. With the default backoff, 22 attempts ride out a provider outage of an hour in 99 % of cases (full jitter: the waits are random).',
    22,
    100,
  ),
  EMAIL_BACKOFF_BASE_MS: positiveInt(
    'Full-jitter backoff between SMTP attempts: the n-th retry waits random(0, min(cap, base * 2^(n-1))).',
    5000,
    HOUR,
  ),
  EMAIL_BACKOFF_CAP_MS: positiveInt('Cap of the SMTP retry backoff.', 15 * 60_000, 24 * HOUR),
  EMAIL_RECORD_RETRY_MS: positiveInt(
    'How long a worker keeps trying to record an email the SMTP server accepted, while Postgres is away (a failover takes 30–120 s); giving up means the retry sends it again.',
    300_000,
    HOUR,
  ),
  DEPENDENCY_WAIT_BASE_MS: positiveInt(
    'An event whose candidate or posting is not known yet is re-sent to the inbox after about this long (SQS delays are whole seconds), doubling each time.',
    1000,
    900_000,
  ),
  DEPENDENCY_WAIT_CAP_MS: positiveInt(
    'Longest single wait of such an event (SQS allows 15 min).',
    300_000,
    900_000,
  ),
  DEPENDENCY_WAIT_MAX_MS: positiveInt(
    'Total wait for a missing candidate or posting before the event is dead-lettered with that reason.',
    HOUR,
    14 * 24 * HOUR,
  ),
  INBOX_CONCURRENCY: positiveInt('Inbox events handled at once by one worker process.', 10, 100),
  UNSUBSCRIBE_SIGNING_KEY: z
    .string()
    .min(32, 'must be at least 32 characters')
    .refine((value) => value !== PUBLISHED_SIGNING_KEY, 'is the published development key: generate your own')
    .optional()
    .describe(
      'Secret that seals the one-click unsubscribe links (nobody can unsubscribe someone else); required in production (pnpm start generates one per state directory). Unset elsewhere: a random key per process, so links made by one process fail in another.',
    ),
  UNSUBSCRIBE_BASE_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .default(`http://127.0.0.1:${servicePort('notifications')}`)
    .describe(
      "Public base URL of the notifications service port, where emails' unsubscribe links point; https and not loopback in production.",
    ),
  WELCOME_EMAILS_PER_ADDRESS_PER_DAY: positiveInt(
    'Welcome emails one address gets in 24 h, whatever the tenants registering it.',
    1,
    100,
  ),
  TENANT_DAILY_EMAIL_QUOTA: positiveInt(
    "Emails one tenant's events may cause per UTC day; beyond, they are held (logged) and sent on a later day.",
    1000,
    10_000_000,
  ),
  CONTACT_CONFIRMATION_REQUIRED: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('true')
    .transform((value) => value === 'true')
    .describe(
      "Whether a posting's summary waits until its contact address confirmed (a confirmation email with a link), unless it is the tenant's own contact. false only for load tests of many addresses (chaos, bench); production refuses it.",
    ),
  EMAILS_PER_ADDRESS_PER_DAY: positiveInt(
    'Emails one address gets per UTC day, whatever the tenants and templates (welcome, match, summary); beyond, they are held (counted as capped) and sent on a later day.',
    10,
    10_000_000,
  ),
});

export type Config = Omit<z.output<typeof configSchema>, 'UNSUBSCRIBE_SIGNING_KEY'> & {
  UNSUBSCRIBE_SIGNING_KEY: string;
};

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0|\[::\])$/i;

/** What an email send still running at shutdown may take beyond SMTP_TIMEOUT_MS: recording it. */
export const SEND_RECORD_GRACE_MS = 5000;
/** What the other shutdown steps (HTTP, the inbox, connections, telemetry) need around it. */
const OTHER_SHUTDOWN_STEPS_MS = 5000;

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = parseServiceConfig(configSchema, env, {
    httpsInProduction: ['UNSUBSCRIBE_BASE_URL'],
    requiredInProduction: { UNSUBSCRIBE_SIGNING_KEY: 'it seals unsubscribe links' },
  });
  if (parsed.NODE_ENV === 'production' && LOOPBACK.test(new URL(parsed.UNSUBSCRIBE_BASE_URL).hostname)) {
    throw new ConfigError([
      {
        variable: 'UNSUBSCRIBE_BASE_URL',
        message:
          'must be a public URL when NODE_ENV=production (it goes into every email), not a loopback one',
      },
    ]);
  }
  const config: Config = {
    ...parsed,
    UNSUBSCRIBE_SIGNING_KEY: parsed.UNSUBSCRIBE_SIGNING_KEY ?? randomBytes(32).toString('base64url'),
  };
  if (config.NODE_ENV === 'production' && !config.CONTACT_CONFIRMATION_REQUIRED) {
    throw new ConfigError([
      {
        variable: 'CONTACT_CONFIRMATION_REQUIRED',
        message: 'must be true when NODE_ENV=production (summaries go only to confirmed addresses)',
      },
    ]);
  }
  // A graceful stop waits for running sends to end (each bounded by
  // SMTP_TIMEOUT_MS) and be recorded before the database closes: a budget
  // that cannot hold them would abandon an accepted email unrecorded, to be
  // sent again by the next worker.
  const needed = config.SMTP_TIMEOUT_MS + SEND_RECORD_GRACE_MS + OTHER_SHUTDOWN_STEPS_MS;
  if (config.SHUTDOWN_TIMEOUT_MS < needed) {
    throw new ConfigError([
      {
        variable: 'SHUTDOWN_TIMEOUT_MS',
        message: `must be at least ${needed} (SMTP_TIMEOUT_MS ${config.SMTP_TIMEOUT_MS} + ${SEND_RECORD_GRACE_MS + OTHER_SHUTDOWN_STEPS_MS}), so a send running at shutdown can finish and be recorded`,
      },
    ]);
  }
  return config;
}
