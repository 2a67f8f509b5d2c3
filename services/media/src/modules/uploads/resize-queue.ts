// The resize queue: how an accepted upload asks for its variants. It lives
// with the uploads (they enqueue); the resize module, which takes the tasks,
// depends on uploads and not the other way round (no folder cycle).
import { idempotencyKey } from '@hireflow/idempotency';
import type { RedisConnection } from '@hireflow/messaging';
import { createTaskQueue, type TaskQueue } from '@hireflow/messaging/tasks';
import { withTimeout } from '@hireflow/runtime';

export const RESIZE_QUEUE = 'resize';

/** A resize task names its upload; everything else is on the upload row and in S3. */
export interface ResizeTask {
  uploadId: string;
  tenantId: string;
}

/** One task per upload: the id derives from this key, so adding it twice is a no-op. */
export const resizeIntent = (uploadId: string) => idempotencyKey('resize', uploadId);

export type ResizeQueue = TaskQueue<ResizeTask>;

export function createResizeQueue(options: {
  connection: RedisConnection;
  prefix: string;
  attempts: number;
  backoff: { base: number; cap: number };
}): ResizeQueue {
  return createTaskQueue<ResizeTask>({
    name: RESIZE_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    backoff: options.backoff,
    tracerName: '@hireflow/media',
    // An upload a person waits on: interactive, round-robin by tenant (docs/fairness.md).
    fair: true,
  });
}

/** Adds the upload's resize task, bounded in time: a Redis outage must not hold the request (the sweep adds it later). */
export function enqueueResize(queue: ResizeQueue, task: ResizeTask, timeoutMs = 1000): Promise<string> {
  return withTimeout(
    queue.add('resize', task, { intentKey: resizeIntent(task.uploadId), tenantId: task.tenantId }),
    timeoutMs,
  );
}
