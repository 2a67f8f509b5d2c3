import { parseServiceConfig, serviceConfigSchema } from '@hireflow/runtime';
import type { z } from 'zod';

/** Every variable the matching service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('matching', 3002).extend({});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseServiceConfig(configSchema, env);
}
