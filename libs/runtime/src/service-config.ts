import {
  ConfigError,
  databaseUrl,
  logLevel,
  otelEndpoint,
  parseConfig,
  port,
  redisUrl,
  role,
} from '@hireflow/config';
import { adminPortFor, type ConsumerName, consumerPort } from '@hireflow/contracts';
import { z } from 'zod';
import { awsConfigSchema } from './aws.ts';

/** docker-compose's admin token of earlier versions, published in this repository: refused everywhere. */
export const PUBLISHED_ADMIN_TOKEN = 'hireflow-development-admin-token';

/** The variables every service (and subscriber service) reads; a service's config.ts extends it with its own. PORT defaults to the service's port in libs/contracts. */
export function serviceConfigSchema(service: ConsumerName) {
  return z.object({
    NODE_ENV: z
      .enum(['development', 'test', 'production'], {
        message: 'must be one of development, test, production',
      })
      .default('development')
      .describe('production: the admin listener refuses to start without ADMIN_TOKEN.'),
    DATABASE_URL: databaseUrl(service),
    DATABASE_POOL_MAX: z.coerce
      .number({ message: 'must be a number' })
      .int('must be a whole number')
      .min(2, 'must be at least 2')
      .max(100, 'must be at most 100')
      .default(10)
      .describe(
        "Postgres connections one process may open (plus one for the outbox's LISTEN, and one for the webhooks' in jobs' worker role): processes × (this + 2) must stay below max_connections.",
      ),
    REDIS_URL: redisUrl(),
    REDIS_PREFIX: z
      .string()
      .regex(/^[a-z0-9:_-]+$/, 'must contain only lowercase letters, digits, ":", "_" and "-"')
      .default(`hf:${service}`)
      .describe(`Prefix of every Redis key the service writes (BullMQ queues, rate limits).`),
    ...awsConfigSchema.shape,
    OTEL_EXPORTER_OTLP_ENDPOINT: otelEndpoint(),
    HOST: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe('Address the service port binds (0.0.0.0 in containers).'),
    PORT: port(consumerPort(service)).describe(
      'Service port: health and the public API (0 picks a free one).',
    ),
    TRUST_PROXY: z
      .string()
      .regex(
        /^(true|false|\d+|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/,
        'must be true, false, a number of hops, or proxy addresses/CIDRs separated by commas',
      )
      .default('false')
      .describe(
        "Whose X-Forwarded-For to believe for the client address (rate limits by address): false (the socket), true, a hop count, or the proxies' addresses/CIDRs (behind an ALB: its subnets).",
      ),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce
      .number({ message: 'must be a number' })
      .int('must be a whole number')
      .min(1000, 'must be at least 1000')
      .max(600_000, 'must be at most 600000')
      .default(30_000)
      .describe('Longest time a client may take to send a whole request (a trickled body is cut: 408).'),
    ADMIN_HOST: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe('Address the admin port binds: metrics, Bull Board, /internal routes. Never public.'),
    ADMIN_PORT: z.coerce
      .number({ message: 'must be a number' })
      .int('must be a whole number')
      .min(0, 'must be between 0 and 65535')
      .max(65535, 'must be between 0 and 65535')
      .optional()
      .describe('Admin port; default PORT + 1000 (0 when PORT is 0: a free one).'),
    ADMIN_ALLOWED_HOSTS: z
      .string()
      .regex(/^([a-z0-9.-]+(,[a-z0-9.-]+)*)?$/i, 'must be host names separated by commas')
      .default('')
      .describe(
        'Host names the admin port answers besides loopback names and IP addresses (a web page cannot reach it by DNS rebinding); comma-separated.',
      ),
    ADMIN_TOKEN: z
      .string()
      .min(16, 'must be at least 16 characters')
      .max(512, 'must be at most 512 characters')
      .refine(
        (value) => value !== PUBLISHED_ADMIN_TOKEN,
        'is the published development token: generate your own',
      )
      .optional()
      .describe(
        'When set, every admin request needs it, as a Bearer token or as the password of HTTP Basic auth.',
      ),
    QUEUE_METRICS: z
      .enum(['on', 'off'], { message: 'must be one of on, off' })
      .optional()
      .describe(
        "Sample the service's queue gauges (inbox, DLQ, BullMQ, outbox) and watch its dead letters: of the processes with it on, one at a time does (a lease in Redis). Unset: on where the worker runs (ROLE worker or all), off in an API process, which loads no BullMQ.",
      ),
    QUEUE_METRICS_INTERVAL_MS: z.coerce
      .number({ message: 'must be a number' })
      .int('must be a whole number')
      .min(500, 'must be at least 500')
      .max(600_000, 'must be at most 600000')
      .default(5000)
      .describe('How often the queue gauges are sampled.'),
    ALERT_WEBHOOK_URL: z
      .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
      .optional()
      .describe(
        'Receives a JSON POST when a dead-letter set becomes non-empty (firing) and when it is emptied (resolved).',
      ),
    INBOX_FAIRNESS: z
      .enum(['on', 'off'], { message: 'must be one of on, off' })
      .default('on')
      .describe(
        "Fairness by tenant in each inbox queue (docs/fairness.md): events started by tenant in turn, a flood's surplus hidden until its turn. off: first in, first out.",
      ),
    ROLE: role(),
    LOG_LEVEL: logLevel(),
    SHUTDOWN_TIMEOUT_MS: z.coerce
      .number({ message: 'must be a number' })
      .int('must be a whole number')
      .min(1000, 'must be at least 1000')
      .max(120_000, 'must be at most 120000')
      .default(25_000)
      .describe('How long a graceful shutdown may take before the process exits with an error.'),
  });
}

export { parseConfig };

export type ServiceConfig = z.output<ReturnType<typeof serviceConfigSchema>>;

/**
 * Parses a service's config, and refuses a production process whose admin
 * listener would be open to whoever reaches it.
 */
export function parseServiceConfig<S extends ReturnType<typeof serviceConfigSchema>>(
  schema: S,
  env: Record<string, string | undefined>,
  options: {
    /** URL variables that must be https:// with NODE_ENV=production (links handed to the public). */
    httpsInProduction?: (keyof z.output<S> & string)[];
    /** Secrets with no default that NODE_ENV=production refuses to start without, each with what it guards. */
    requiredInProduction?: Partial<Record<keyof z.output<S> & string, string>>;
  } = {},
): z.output<S> {
  const config = parseConfig(schema, env);
  if (config.NODE_ENV !== 'production') return config;
  if (!config.ADMIN_TOKEN) {
    throw new ConfigError([
      { variable: 'ADMIN_TOKEN', message: 'is required when NODE_ENV=production (it guards the admin port)' },
    ]);
  }
  const values = config as Record<string, unknown>;
  const missing = Object.entries(options.requiredInProduction ?? {}).filter(
    ([variable]) => values[variable] === undefined || values[variable] === '',
  );
  if (missing.length > 0) {
    throw new ConfigError(
      missing.map(([variable, guards]) => ({
        variable,
        message: `is required when NODE_ENV=production (${guards})`,
      })),
    );
  }
  if (config.TRUST_PROXY === 'true' || /^\d+$/.test(config.TRUST_PROXY)) {
    throw new ConfigError([
      {
        variable: 'TRUST_PROXY',
        message:
          "must name the proxies' addresses or CIDRs when NODE_ENV=production (true or a hop count believes a client's own X-Forwarded-For)",
      },
    ]);
  }
  const plain = (options.httpsInProduction ?? []).filter(
    (variable) => !String(config[variable]).startsWith('https://'),
  );
  if (plain.length > 0) {
    throw new ConfigError(
      plain.map((variable) => ({ variable, message: 'must be an https:// URL when NODE_ENV=production' })),
    );
  }
  return config;
}

/** The admin port: ADMIN_PORT, else PORT + 1000, and 0 (a free one) when PORT is 0. */
export function adminPortOf(config: Pick<ServiceConfig, 'PORT' | 'ADMIN_PORT'>): number {
  if (config.ADMIN_PORT !== undefined) return config.ADMIN_PORT;
  return adminPortFor(config.PORT);
}

/** Fastify's `trustProxy` from TRUST_PROXY. */
export function trustProxyOf(
  value: string,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value.split(',');
}

/**
 * Whether this process may sample its service's queue gauges (QUEUE_METRICS):
 * one such process at a time does. Unset, the processes that run the worker
 * do, not an API process: the gauges include BullMQ's, and an API process
 * does not load BullMQ (issue 31). Set to `on`, an API process samples too,
 * and loads BullMQ for its first round.
 */
export function samplesQueues(config: Pick<ServiceConfig, 'QUEUE_METRICS' | 'ROLE'>): boolean {
  return (config.QUEUE_METRICS ?? (config.ROLE === 'api' ? 'off' : 'on')) === 'on';
}
