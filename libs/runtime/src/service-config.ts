import { databaseUrl, logLevel, otelEndpoint, parseConfig, port, redisUrl, role } from '@hireflow/config';
import { awsConfigSchema, type ServiceName } from '@hireflow/infra';
import { z } from 'zod';

/** The variables every service reads; a service's config.ts extends it with its own. */
export function serviceConfigSchema(service: ServiceName, defaultPort: number) {
  return z.object({
    DATABASE_URL: databaseUrl(service),
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
      .describe('Address the HTTP server binds (0.0.0.0 in containers).'),
    PORT: port(defaultPort),
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

export type ServiceConfig = z.output<ReturnType<typeof serviceConfigSchema>>;

export { parseConfig };
