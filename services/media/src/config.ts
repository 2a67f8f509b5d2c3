import { parseServiceConfig, serviceConfigSchema } from '@hireflow/runtime';
import type { z } from 'zod';

/** Every variable the media service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('media', 3004).extend({});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseServiceConfig(configSchema, env);
}
