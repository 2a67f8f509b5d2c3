import { adminPortFor, type ServiceName, servicePort } from '@hireflow/contracts';
import { awsConfigSchema } from '@hireflow/runtime/aws';
import { z } from 'zod';
import { instanceSchema } from '../instance/names.ts';

/** Where a service's admin listener is when nothing says otherwise: its port in libs/contracts, on loopback. */
export const defaultAdminUrl = (service: ServiceName): string =>
  `http://127.0.0.1:${adminPortFor(servicePort(service))}`;

const adminUrl = (whose: string, service: ServiceName) =>
  z
    .string()
    .refine(
      (value) => {
        try {
          return ['http:', 'https:'].includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      `must be an http:// or https:// URL (e.g. ${defaultAdminUrl(service)})`,
    )
    .optional()
    .describe(
      `${whose} admin listener, where its event log is read. Unset: the one \`pnpm start\` runs, else ${defaultAdminUrl(service)}.`,
    );

/** What `pnpm replay` reads from the environment (its options are arguments). */
export const replayConfigSchema = z.object({
  ...awsConfigSchema.shape,
  HIREFLOW_INSTANCE: instanceSchema.shape.HIREFLOW_INSTANCE,
  HIREFLOW_STATE_DIR: instanceSchema.shape.HIREFLOW_STATE_DIR.describe(
    "The launcher's state dir: checkpoints go under `<dir>/<instance>/replay/`, and a running `pnpm start` there gives the admin URLs and the emulator.",
  ),
  JOBS_ADMIN_URL: adminUrl("jobs'", 'jobs'),
  MATCHING_ADMIN_URL: adminUrl("matching's", 'matching'),
  MEDIA_ADMIN_URL: adminUrl("media's", 'media'),
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512, 'must be at most 512 characters')
    .optional()
    .describe("The services' admin token (sent as a Bearer token), when they have one."),
});

export type ReplayConfig = z.output<typeof replayConfigSchema>;
