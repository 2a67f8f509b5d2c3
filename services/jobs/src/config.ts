import { positiveInt } from '@hireflow/config';
import { parseServiceConfig, publicApiConfigSchema, serviceConfigSchema } from '@hireflow/runtime';
import type { z } from 'zod';

/** Every variable the jobs service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('jobs', 3001).extend({
  JOB_AUTO_CLOSE_AFTER_MS: positiveInt(
    'A posting closes itself this long after it was posted (default 30 days).',
    30 * 24 * 3600 * 1000,
    365 * 24 * 3600 * 1000,
  ),
  ...publicApiConfigSchema.shape,
  BODY_LIMIT_BYTES: positiveInt('Largest accepted request body.', 64 * 1024, 10 * 1024 * 1024),
});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseServiceConfig(configSchema, env);
}
