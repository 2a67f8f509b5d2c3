import { idempotencyKey } from '@hireflow/idempotency';
import { createJobQueue, type JobQueue, type RedisConnection } from '@hireflow/messaging';
import { withTimeout } from '@hireflow/runtime';

export const RESIZE_QUEUE = 'resize';

/** A resize job names its upload; everything else is on the upload row and in S3. */
export interface ResizeJob {
  uploadId: string;
  tenantId: string;
}

/** One job per upload: the id derives from this key, so adding it twice is a no-op. */
export const resizeIntent = (uploadId: string) => idempotencyKey('resize', uploadId);

export type ResizeQueue = JobQueue<ResizeJob>;

export function createResizeQueue(options: {
  connection: RedisConnection;
  prefix: string;
  attempts: number;
  backoff: { base: number; cap: number };
}): ResizeQueue {
  return createJobQueue<ResizeJob>({
    name: RESIZE_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    backoff: options.backoff,
    tracerName: '@hireflow/media',
  });
}

/** Adds the upload's resize job, bounded in time: a Redis outage must not hold the request (the sweep adds it later). */
export function enqueueResize(queue: ResizeQueue, job: ResizeJob, timeoutMs = 1000): Promise<string> {
  return withTimeout(queue.add('resize', job, { intentKey: resizeIntent(job.uploadId) }), timeoutMs);
}
