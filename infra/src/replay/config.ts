import { awsConfigSchema } from '@hireflow/runtime/aws';
import { z } from 'zod';
import { launcherSchema } from '../local/settings.ts';

const adminUrl = (whose: string, port: number) =>
  z
    .string()
    .refine((value) => {
      try {
        return ['http:', 'https:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'must be an http:// or https:// URL (e.g. http://127.0.0.1:4001)')
    .optional()
    .describe(
      `${whose} admin listener, where its event log is read. Unset: the one \`pnpm start\` runs, else http://127.0.0.1:${port}.`,
    );

/** What `pnpm replay` reads from the environment (its options are arguments). */
export const replayConfigSchema = z.object({
  ...awsConfigSchema.shape,
  HIREFLOW_INSTANCE: launcherSchema.shape.HIREFLOW_INSTANCE,
  HIREFLOW_STATE_DIR: launcherSchema.shape.HIREFLOW_STATE_DIR.describe(
    "The launcher's state dir: checkpoints go under `<dir>/<instance>/replay/`, and a running `pnpm start` there gives the admin URLs and the emulator.",
  ),
  JOBS_ADMIN_URL: adminUrl("jobs'", 4001),
  MATCHING_ADMIN_URL: adminUrl("matching's", 4002),
  MEDIA_ADMIN_URL: adminUrl("media's", 4004),
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512, 'must be at most 512 characters')
    .optional()
    .describe("The services' admin token (sent as a Bearer token), when they have one."),
});

export type ReplayConfig = z.output<typeof replayConfigSchema>;
