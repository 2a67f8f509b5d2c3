import { z } from 'zod';

// Reusable, described variable schemas. A service's config.ts picks the ones
// it needs under their environment names; the description is what the README
// configuration table and `describeConfig` print.

const url = (protocols: string[], example: string) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL with scheme ${protocols.join(' or ')} (e.g. ${example})` },
  );

export const databaseUrl = (service: string) =>
  url(['postgres:', 'postgresql:'], `postgres://postgres@127.0.0.1:5432/hireflow_${service}`)
    .default(`postgres://postgres@127.0.0.1:5432/hireflow_${service}`)
    .describe(`The service's own Postgres database; created if missing.`);

export const redisUrl = () =>
  url(['redis:', 'rediss:'], 'redis://127.0.0.1:6379')
    .default('redis://127.0.0.1:6379')
    .describe('Redis for BullMQ queues, rate limits and pub/sub.');

export const awsRegion = () =>
  z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-west-1')
    .default('eu-west-1')
    .describe('AWS region for SNS/SQS (also used by the local emulator).');

export const awsEndpointUrl = () =>
  url(['http:', 'https:'], 'http://127.0.0.1:4566')
    .optional()
    .describe('SNS/SQS endpoint (the AWS SDK setting). Unset on AWS; the local emulator locally.');

export const smtpUrl = () =>
  url(['smtp:', 'smtps:'], 'smtp://127.0.0.1:1025')
    .default('smtp://127.0.0.1:1025')
    .describe('SMTP server that sends (or, locally, catches) email.');

export const otelEndpoint = () =>
  url(['http:', 'https:'], 'http://127.0.0.1:4318')
    .default('http://127.0.0.1:4318')
    .describe('OTLP/HTTP endpoint for traces (Jaeger or a collector).');

export const port = (fallback: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be between 0 and 65535')
    .max(65535, 'must be between 0 and 65535')
    .default(fallback)
    .describe('HTTP port (0 picks a free one).');

export const role = () =>
  z
    .enum(['api', 'worker', 'all'], { message: 'must be one of api, worker, all' })
    .default('all')
    .describe('api: HTTP only; worker: SQS consumers, BullMQ workers, outbox relay; all: both.');
export type Role = 'api' | 'worker' | 'all';

export const logLevel = () =>
  z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info')
    .describe('pino log level.');

export const topologyPrefix = () =>
  z
    .string()
    .regex(/^[a-z0-9-]*$/, 'must contain only lowercase letters, digits and dashes')
    .max(40, 'must be at most 40 characters')
    .default('')
    .describe('Prefix for every topic and queue name (tests use their own).');

/** A whole number from 1 to `max` (counts, sizes, durations in ms), with a default. */
export const positiveInt = (what: string, fallback: number, max: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback)
    .describe(what);

/**
 * A fair queue's cap on one tenant's tasks running at once, all workers
 * together (docs/fairness.md): 0 (the default) for no cap, at most 1000.
 * `what` says what runs at once, e.g. 'Emails of one tenant sent at once'.
 */
export const tenantConcurrency = (what: string) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 (no limit) or more')
    .max(1000, 'must be at most 1000')
    .default(0)
    .describe(`${what}, all workers together; 0: no limit (docs/fairness.md).`);

/**
 * A worker's headroom (docs/fairness.md): slots beyond its concurrency, taken
 * only by a task that jumps a line of its fair queue. Default 0 (none): its
 * gain was not measurable for the services' tasks, its costs are certain
 * (docs/fairness.md, "Headroom").
 */
export const headroom = (tasks: string) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 (none) or more')
    .max(16, 'must be at most 16')
    .default(0)
    .describe(
      `${tasks} a worker process may run beyond its concurrency, only for one that jumps a line while every slot is busy; 0: none (docs/fairness.md).`,
    );

/** A public base URL (http or https, no query or fragment), trailing slashes removed. */
export const publicBaseUrl = (fallback: string, what: string) =>
  z
    .string()
    .refine((value) => {
      try {
        const url = new URL(value);
        return ['http:', 'https:'].includes(url.protocol) && !url.search && !url.hash;
      } catch {
        return false;
      }
    }, 'must be an http:// or https:// URL without query or fragment (e.g. https://media.example.com)')
    .transform((value) => value.replace(/\/+$/, ''))
    .default(fallback)
    .describe(what);

/**
 * A producer's EVENT_LOG_RETENTION_DAYS: how long it keeps what it published
 * for replays. Kept at or below notifications' NOTIFICATION_REPLAY_HORIZON_DAYS.
 */
export const eventLogRetentionDays = () =>
  positiveInt(
    "How long the service keeps the events it published, for replays (pnpm replay). Keep it at or below notifications' NOTIFICATION_REPLAY_HORIZON_DAYS (400), else a replay of an older event can send its email again.",
    365,
    3650,
  );
