import { smtpUrl } from '@hireflow/config';
import { parseConfig, serviceConfigSchema } from '@hireflow/runtime';
import type { z } from 'zod';

/** Every variable the notifications service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('notifications', 3003).extend({
  SMTP_URL: smtpUrl(),
});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseConfig(configSchema, env);
}
