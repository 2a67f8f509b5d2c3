// The resize queue: how an accepted upload asks for its variants. It lives
// with the uploads (they enqueue); the resize module, which takes the tasks,
// depends on uploads and not the other way round (no folder cycle). Only types
// come from `@hireflow/messaging/tasks`: the API process imports this module
// without loading BullMQ, and loads it on its first upload (`lazyTaskQueue`,
// issue 31); the worker makes its queue with `createTaskQueue`, both from
// `resizeTaskOptions`.
import { idempotencyKey } from '@hireflow/idempotency';
import type { LazyTaskQueue, RedisConnection } from '@hireflow/messaging';
import type { TaskQueueOptions } from '@hireflow/messaging/tasks';
import { withTimeout } from '@hireflow/runtime';

export const RESIZE_QUEUE = 'resize';

/** A resize task names its upload; everything else is on the upload row and in S3. */
export interface ResizeTask {
  uploadId: string;
  tenantId: string;
}

/** One task per upload: the id derives from this key, so adding it twice is a no-op. */
export const resizeIntent = (uploadId: string) => idempotencyKey('resize', uploadId);

/** What uploads and the sweep use of the resize queue: the API's (`lazyTaskQueue`) or the worker's (`createTaskQueue`). */
export type ResizeQueue = LazyTaskQueue<ResizeTask>;

/** The resize queue's settings, for `createTaskQueue` or `lazyTaskQueue`. */
export function resizeTaskOptions(options: {
  connection: RedisConnection;
  prefix: string;
  attempts: number;
  backoff: { base: number; cap: number };
}): TaskQueueOptions {
  return {
    name: RESIZE_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    backoff: options.backoff,
    tracerName: '@hireflow/media',
    // An upload a person waits on: interactive, round-robin by tenant (docs/fairness.md).
    fair: true,
  };
}

/** Adds the upload's resize task, bounded in time: a Redis outage must not hold the request (the sweep adds it later). */
export function enqueueResize(queue: ResizeQueue, task: ResizeTask, timeoutMs = 1000): Promise<string> {
  return withTimeout(
    queue.add('resize', task, { intentKey: resizeIntent(task.uploadId), tenantId: task.tenantId }),
    timeoutMs,
  );
}
