import type { MessageObserver } from '@hireflow/messaging';
import { createTaskQueue } from '@hireflow/messaging/tasks';
import { type Closeable, type ServiceDeps, startInbox } from '@hireflow/runtime';
import { createS3Client } from '@hireflow/runtime/s3';
import { bucketOf } from './app.ts';
import { type Config, imageLimitsOf } from './config.ts';
import { apiKeyHandlers } from './modules/api-keys/consumers.ts';
import { createImageLimiter } from './modules/images/index.ts';
import { type ResizeOutcome, startResizeWorker } from './modules/resize/processor.ts';
import { sweepPendingUploads } from './modules/resize/sweep.ts';
import { createMediaStore } from './modules/storage/index.ts';
import { expireUnattachedUploads } from './modules/uploads/expiry.ts';
import { ownerHandlers } from './modules/uploads/owner-consumers.ts';
import { type ResizeTask, resizeTaskOptions } from './modules/uploads/resize-queue.ts';

/** Observers a test or benchmark attaches (dependency overrides, not mocks). */
export interface WorkerHooks {
  onMessage?: MessageObserver;
  onResized?: (outcome: ResizeOutcome) => void;
}

/**
 * The media worker role: the inbox (the API-key and owners projections), the `resize`
 * BullMQ worker (variants to S3, the upload finished with its event), the
 * outbox relay (media.processed.v1 / media.failed.v1) and housekeeping.
 */
export async function startWorker(
  config: Config,
  deps: ServiceDeps,
  hooks: WorkerHooks = {},
): Promise<Closeable[]> {
  const log = deps.log.child({ role: 'worker' });
  const limits = imageLimitsOf(config);
  const backoff = { base: config.RESIZE_BACKOFF_BASE_MS, cap: config.RESIZE_BACKOFF_CAP_MS };
  const s3 = createS3Client(deps.aws);

  const store = createMediaStore(s3, bucketOf(config, deps));
  const resizer = startResizeWorker({
    orm: deps.orm,
    store,
    limiter: createImageLimiter({ concurrency: config.MEDIA_IMAGE_CONCURRENCY, timeoutMs: limits.timeoutMs }),
    limits,
    publicUrl: config.MEDIA_PUBLIC_URL,
    log,
    connection: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    concurrency: config.RESIZE_CONCURRENCY,
    tenantConcurrency: config.RESIZE_TENANT_CONCURRENCY,
    headroom: config.RESIZE_HEADROOM,
    backoff,
    ...(hooks.onResized ? { onFinished: hooks.onResized } : {}),
  });
  const queue = createTaskQueue<ResizeTask>(
    resizeTaskOptions({
      connection: deps.redis,
      prefix: config.REDIS_PREFIX,
      attempts: config.RESIZE_ATTEMPTS,
      backoff,
    }),
  );
  const inbox = await startInbox(deps, {
    handlers: {
      ...apiKeyHandlers(deps.orm, { eventKey: config.APIKEY_EVENT_KEY }),
      ...ownerHandlers(deps.orm, config.MEDIA_PUBLIC_URL),
    },
    consumer: {
      fairness: config.INBOX_FAIRNESS === 'on',
      ...(hooks.onMessage ? { onMessage: hooks.onMessage } : {}),
    },
    eventLogRetentionDays: config.EVENT_LOG_RETENTION_DAYS,
    housekeeping: [
      {
        name: 'pending-uploads-sweep',
        intervalMs: Math.max(1000, Math.floor(config.RESIZE_SWEEP_AFTER_MS / 2)),
        run: async () => {
          const swept = await sweepPendingUploads(deps.orm.em.fork(), queue, {
            olderThanMs: config.RESIZE_SWEEP_AFTER_MS,
          });
          if (swept.requeued.length + swept.failed.length > 0) log.warn(swept, 'swept pending uploads');
        },
      },
      {
        name: 'unattached-uploads-expiry',
        intervalMs: Math.max(1000, Math.min(15 * 60_000, Math.floor(config.MEDIA_UNATTACHED_TTL_MS / 4))),
        run: async () => {
          const { attached, removed } = await expireUnattachedUploads(deps.orm.em.fork(), store, {
            olderThanMs: config.MEDIA_UNATTACHED_TTL_MS,
            publicUrl: config.MEDIA_PUBLIC_URL,
          });
          if (attached > 0) log.info({ attached }, 'attached uploads whose owner is now known');
          if (removed.length > 0) {
            log.info({ removed: removed.length }, 'removed uploads without a known owner');
          }
        },
      },
    ],
    log,
  });

  // Running resizes finish before the relay flushes their events to SNS.
  return inbox.closeables([
    { name: 'resize-worker', close: async () => void (await resizer.close()) },
    { name: 'resize-queue', close: () => queue.close() },
    { name: 's3', close: async () => s3.destroy() },
  ]);
}
