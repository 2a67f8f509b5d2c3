import { redisUrl } from '@hireflow/config';
import type { ServiceName } from '@hireflow/contracts';
import { z } from 'zod';
import { instanceSchema, redisPrefixFor } from './instance/names.ts';

const prefix = (service: string) =>
  z
    .string()
    .regex(/^[a-z0-9:_-]+$/, 'must contain only lowercase letters, digits, ":", "_" and "-"')
    .optional()
    .describe(`${service}'s REDIS_PREFIX, when it is not what \`pnpm start\` gives it.`);

/** What `pnpm dlq` reads besides the AWS settings. */
export const dlqCliSchema = z.object({
  REDIS_URL: redisUrl(),
  HIREFLOW_INSTANCE: instanceSchema.shape.HIREFLOW_INSTANCE.describe(
    'The `pnpm start` instance whose Redis prefixes to use (hf-<instance>:<service>).',
  ),
  REDIS_PREFIX_JOBS: prefix('jobs'),
  REDIS_PREFIX_MATCHING: prefix('matching'),
  REDIS_PREFIX_NOTIFICATIONS: prefix('notifications'),
  REDIS_PREFIX_MEDIA: prefix('media'),
});

type DlqCliConfig = z.output<typeof dlqCliSchema>;

/** A service's Redis prefix: its REDIS_PREFIX_<SERVICE>, else the one `pnpm start` gives it. */
export function redisPrefixOf(service: ServiceName, config: DlqCliConfig): string {
  const explicit = config[`REDIS_PREFIX_${service.toUpperCase()}` as keyof DlqCliConfig];
  if (explicit) return explicit;
  return redisPrefixFor(config.HIREFLOW_INSTANCE, service);
}
