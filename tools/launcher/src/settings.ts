import { logLevel, otelEndpoint, parseConfig, port, redisUrl } from '@hireflow/config';
import { PUBLIC_API_PORT, SERVICE_PORT_BASE } from '@hireflow/contracts';
import { instanceSchema } from '@hireflow/ops';
import { awsConfigSchema } from '@hireflow/runtime/aws';
import { traceOtlpPort, traceUiPort } from '@hireflow/trace-viewer';
import { z } from 'zod';

const portNumber = (fallback: number, what: string) => port(fallback).describe(what);

/** What `pnpm start` reads. Every setting a user passes is honoured. */
export const launcherSchema = z.object({
  HIREFLOW_INSTANCE: instanceSchema.shape.HIREFLOW_INSTANCE,
  POSTGRES_URL: z
    .string()
    .url('must be a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/postgres')
    .describe('Postgres server; each service gets its own database hireflow_<service> on it.'),
  REDIS_URL: redisUrl(),
  ...awsConfigSchema.shape,
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')
    .optional()
    .describe('Where email goes; unset: a local mail catcher is started.'),
  // Optional here, unlike in a service: unset means the launcher decides.
  OTEL_EXPORTER_OTLP_ENDPOINT: otelEndpoint()
    .unwrap()
    .optional()
    .describe(
      'OTLP/HTTP endpoint for traces (Jaeger or a collector); unset: a collector already on 127.0.0.1:TRACE_OTLP_PORT, else a local trace viewer is started.',
    ),
  LOG_LEVEL: logLevel(),
  HIREFLOW_PORT_BASE: portNumber(
    SERVICE_PORT_BASE,
    'jobs listens on it, matching +1, notifications +2, media +3; 0: free ports.',
  ),
  HIREFLOW_API_PORT: portNumber(
    PUBLIC_API_PORT,
    'The public API at one base URL: a local gateway in front of jobs and media, as the load balancer on AWS; 0: a free port.',
  ),
  EMULATOR_PORT: portNumber(4566, 'Port of the embedded SNS/SQS emulator (when AWS_ENDPOINT_URL is unset).'),
  MAIL_SMTP_PORT: portNumber(1025, 'SMTP port of the local mail catcher.'),
  MAIL_UI_PORT: portNumber(8025, 'Web page of the local mail catcher.'),
  WEBHOOK_RECEIVER_PORT: portNumber(
    8026,
    'The local webhook receiver: endpoints to register (http://127.0.0.1:PORT/in/<name>) and a page of what arrived; 0: a free port.',
  ),
  PROMETHEUS_PORT: portNumber(
    9090,
    'Port of the local Prometheus `pnpm start --prometheus` runs (when a `prometheus` binary is installed); 0: a free port.',
  ),
  TRACE_OTLP_PORT: traceOtlpPort(),
  TRACE_UI_PORT: traceUiPort(),
  HIREFLOW_SCALING: z
    .enum(['on', 'off'], { message: 'must be one of on, off' })
    .default('on')
    .describe(
      "on: each service's API in one process and its worker role as a pool the autoscaler sizes (docs/operations.md); off: one process per service.",
    ),
  SCALING_INTERVAL_MS: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(200, 'must be at least 200')
    .max(600_000, 'must be at most 600000')
    .default(5000)
    .describe('How often the autoscaler reads each service’s signal and decides.'),
  SCALING_TIME_SCALE: z.coerce
    .number({ message: 'must be a number' })
    .positive('must be above 0')
    .max(1, 'must be at most 1')
    .default(1)
    .describe(
      'Multiplies the policy’s cool-downs, quiet period and age threshold (0.05 runs a 10-minute quiet period in 30 s, for demos).',
    ),
  HIREFLOW_READY_TIMEOUT_MS: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1000, 'must be at least 1000')
    .max(600_000, 'must be at most 600000')
    .default(60_000)
    .describe('How long each service may take to start and answer ready before the launcher gives up.'),
  HIREFLOW_STATE_DIR: instanceSchema.shape.HIREFLOW_STATE_DIR,
});

export type LauncherSettings = z.output<typeof launcherSchema>;

export function loadLauncherSettings(env: Record<string, string | undefined>): LauncherSettings {
  return parseConfig(launcherSchema, env);
}
