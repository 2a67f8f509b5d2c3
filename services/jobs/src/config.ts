import { parseConfig, serviceConfigSchema } from '@hireflow/runtime';
import type { z } from 'zod';

/** Every variable the jobs service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('jobs', 3001).extend({});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseConfig(configSchema, env);
}
