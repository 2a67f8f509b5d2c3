import {
  eventLogRetentionDays,
  headroom,
  positiveInt,
  publicBaseUrl,
  tenantConcurrency,
} from '@hireflow/config';
import { servicePort } from '@hireflow/contracts';
import {
  PUBLIC_API_SECRETS,
  parseServiceConfig,
  publicApiConfigSchema,
  serviceConfigSchema,
} from '@hireflow/runtime';
import { z } from 'zod';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from './modules/images/index.ts';

const publicUrl = publicBaseUrl(
  `http://127.0.0.1:${servicePort('media')}`,
  'Public base of variant URLs (in GET /v1/uploads/{id} and media.processed.v1); what an `<img>` on a page reaches; https in production.',
);

/** Every variable the media service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('media').extend({
  MEDIA_PUBLIC_URL: publicUrl,
  MEDIA_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
    .optional()
    .describe(
      "The S3 bucket of originals and variants; default: the topology's `media` bucket with HIREFLOW_TOPOLOGY_PREFIX (on AWS the stack names it).",
    ),
  MEDIA_MAX_FILE_BYTES: positiveInt(
    'Largest accepted upload in bytes (413 above it).',
    DEFAULT_IMAGE_LIMITS.maxBytes,
    100 * 1024 * 1024,
  ),
  MEDIA_MAX_PIXELS: positiveInt(
    'Largest accepted image in pixels (width × height, from its header): a decompression bomb is refused (422).',
    DEFAULT_IMAGE_LIMITS.maxPixels,
    268_402_689,
  ),
  MEDIA_IMAGE_TIMEOUT_MS: positiveInt(
    'Wall time one image may take to decode and resize; past it the upload ends failed.',
    DEFAULT_IMAGE_LIMITS.timeoutMs,
    600_000,
  ),
  MEDIA_IMAGE_CONCURRENCY: positiveInt(
    'Images one worker process decodes and resizes at once (sharp uses one thread per image).',
    4,
    64,
  ),
  RESIZE_CONCURRENCY: positiveInt(
    'Resize tasks one worker process runs at once (S3 reads and writes overlap the image work).',
    8,
    256,
  ),
  RESIZE_TENANT_CONCURRENCY: tenantConcurrency('Resize tasks of one tenant running at once'),
  RESIZE_HEADROOM: headroom('Resize tasks'),
  RESIZE_ATTEMPTS: positiveInt(
    'Attempts of a resize task on transient failures (S3, Postgres); bad images fail at once.',
    8,
    100,
  ),
  RESIZE_BACKOFF_BASE_MS: positiveInt(
    'First retry delay bound of a resize task (full jitter).',
    1000,
    600_000,
  ),
  RESIZE_BACKOFF_CAP_MS: positiveInt('Largest retry delay bound of a resize job.', 600_000, 3_600_000),
  RESIZE_SWEEP_AFTER_MS: positiveInt(
    'An upload still pending this long has its resize task added again if it was lost (checked every half of it).',
    60_000,
    24 * 3_600_000,
  ),
  MEDIA_TENANT_QUOTA_BYTES: positiveInt(
    'Bytes of originals one tenant may keep stored; an upload beyond it is refused (413 STORAGE_QUOTA_EXCEEDED).',
    1024 * 1024 * 1024,
    Number.MAX_SAFE_INTEGER,
  ),
  MEDIA_UNATTACHED_TTL_MS: positiveInt(
    "An upload sent without an owner (ownerType/ownerId), or naming a posting or candidate media has not heard of in the tenant, is removed, bytes and all, this long after it was accepted (unless the owner's event arrives first).",
    3_600_000,
    7 * 24 * 3_600_000,
  ),
  EVENT_LOG_RETENTION_DAYS: eventLogRetentionDays(),
  ...publicApiConfigSchema.shape,
});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseServiceConfig(configSchema, env, {
    httpsInProduction: ['MEDIA_PUBLIC_URL'],
    requiredInProduction: PUBLIC_API_SECRETS,
  });
}

/** The image limits the route and the worker share. */
export function imageLimitsOf(config: Config): ImageLimits {
  return {
    maxBytes: config.MEDIA_MAX_FILE_BYTES,
    maxPixels: config.MEDIA_MAX_PIXELS,
    timeoutMs: config.MEDIA_IMAGE_TIMEOUT_MS,
  };
}
