import { eventLogRetentionDays, positiveInt, publicBaseUrl } from '@hireflow/config';
import { servicePort } from '@hireflow/contracts';
import {
  PUBLIC_API_SECRETS,
  parseServiceConfig,
  publicApiConfigSchema,
  serviceConfigSchema,
} from '@hireflow/runtime';
import { z } from 'zod';
import { refuseLocalWebhooksInProduction, webhookConfigSchema } from './modules/webhooks/config.ts';

/** Every variable the jobs service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('jobs').extend({
  JOB_AUTO_CLOSE_AFTER_MS: positiveInt(
    'A posting closes itself this long after it was posted (default 30 days).',
    30 * 24 * 3600 * 1000,
    365 * 24 * 3600 * 1000,
  ),
  ...publicApiConfigSchema.shape,
  BODY_LIMIT_BYTES: positiveInt('Largest accepted request body.', 64 * 1024, 10 * 1024 * 1024),
  SSE_MAX_STREAMS_PER_KEY: positiveInt(
    'Status streams (SSE) one API key may hold open at once, across every API process (429 beyond).',
    20,
    10_000,
  ),
  SSE_MAX_STREAM_MS: positiveInt(
    'A status stream ends after this long with a retry hint; the client reconnects (EventSource does by itself).',
    600_000,
    86_400_000,
  ),
  SSE_KEEP_ALIVE_MS: positiveInt(
    "A status stream's keep-alive comment, and the recheck of its API key, this often: a revoked key's stream ends within it.",
    15_000,
    60_000,
  ),
  MEDIA_PUBLIC_URL: publicBaseUrl(
    `http://127.0.0.1:${servicePort('media')}`,
    "The media service's public base: logos and photos from media.processed.v1 must have URLs under it (https in production).",
  ),
  API_DOCS: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('true')
    .transform((value) => value === 'true')
    .describe('Serve the API reference page at /docs (the OpenAPI document stays at /openapi.json).'),
  EVENT_LOG_RETENTION_DAYS: eventLogRetentionDays(),
  ...webhookConfigSchema.shape,
});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return refuseLocalWebhooksInProduction(
    parseServiceConfig(configSchema, env, {
      httpsInProduction: ['MEDIA_PUBLIC_URL'],
      requiredInProduction: PUBLIC_API_SECRETS,
    }),
  );
}
