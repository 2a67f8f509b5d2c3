import { positiveInt } from '@hireflow/config';
import { parseServiceConfig, serviceConfigSchema } from '@hireflow/runtime';
import { z } from 'zod';

/** Every variable the jobs service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('jobs', 3001).extend({
  JOB_AUTO_CLOSE_AFTER_MS: positiveInt(
    'A posting closes itself this long after it was posted (default 30 days).',
    30 * 24 * 3600 * 1000,
    365 * 24 * 3600 * 1000,
  ),
  RATE_LIMIT_MAX: positiveInt(
    'Requests one API key may make per RATE_LIMIT_WINDOW_MS (429 beyond).',
    1200,
    1_000_000,
  ),
  RATE_LIMIT_WINDOW_MS: positiveInt('Rate limit window.', 60_000, 3_600_000),
  LOAD_SHED_EVENT_LOOP_DELAY_MS: positiveInt(
    'Event loop delay above which requests are shed with 503 + Retry-After.',
    1000,
    60_000,
  ),
  BODY_LIMIT_BYTES: positiveInt('Largest accepted request body.', 64 * 1024, 10 * 1024 * 1024),
  FAILED_AUTH_MAX: positiveInt(
    'Requests with missing or wrong credentials one client address may make per FAILED_AUTH_WINDOW_MS; beyond, 429 before any lookup.',
    30,
    100_000,
  ),
  FAILED_AUTH_WINDOW_MS: positiveInt('Window of the failed-credentials limit.', 60_000, 3_600_000),
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
  API_DOCS: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('true')
    .transform((value) => value === 'true')
    .describe('Serve the API reference page at /docs (the OpenAPI document stays at /openapi.json).'),
});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseServiceConfig(configSchema, env);
}
