// The email queue: its name, tasks and the batching of adds. Only types come
// from `@hireflow/messaging/tasks`: the API process, which enqueues on a
// contact's confirmation only, imports this module without loading BullMQ
// (issue 31); it makes its queue with `lazyTaskQueue`, the worker with
// `createTaskQueue`, both from `emailTaskOptions`.
import type { Lane, LazyTaskQueue, Logger, RedisConnection } from '@hireflow/messaging';
import type { BulkTask, TaskQueue, TaskQueueOptions } from '@hireflow/messaging/tasks';
import { context } from '@opentelemetry/api';
import type { TemplateName } from '../../db/notification-log.ts';

export const EMAIL_QUEUE = 'email';

/**
 * An email task carries only its intent key: recipient, template and params
 * are in the notification log, so no personal data sits in Redis and every
 * retry renders exactly what was recorded.
 */
export interface EmailTask {
  key: string;
  /** Whose email (an id, not personal data): for the per-tenant limit (docs/fairness.md). */
  tenantId?: string;
}

export interface EmailRequest {
  key: string;
  template: TemplateName;
  /** Whose email: tasks are taken round-robin by tenant (docs/fairness.md); none for a sweep's. */
  tenantId?: string;
  /** `bulk` for an import's or a replay's emails (default interactive). */
  lane?: Lane;
}

/** What the batching needs of a task queue: the worker's (`createTaskQueue`) or the API's (`lazyTaskQueue`). */
export type EmailTasks = LazyTaskQueue<EmailTask>;

export interface EmailQueue<Tasks extends EmailTasks = TaskQueue<EmailTask>> {
  readonly tasks: Tasks;
  /**
   * Adds one task per request, its id derived from the intent key: adding a
   * key twice is a no-op. The requests of every call made in one turn of the
   * event loop (the handlers of one SQS receive batch, resolved by one
   * commit) go to Redis in one addBulk; each task carries the trace of the
   * call that asked for it, and each call fails if the bulk does.
   */
  enqueue(requests: EmailRequest[]): Promise<void>;
  close(): Promise<void>;
}

/** The email queue's settings from the service's, for `createTaskQueue` or `lazyTaskQueue`. */
export function emailTaskOptions(
  connection: RedisConnection,
  config: {
    REDIS_PREFIX: string;
    EMAIL_ATTEMPTS: number;
    EMAIL_BACKOFF_BASE_MS: number;
    EMAIL_BACKOFF_CAP_MS: number;
  },
  logger?: Logger,
): TaskQueueOptions {
  return {
    name: EMAIL_QUEUE,
    connection,
    prefix: config.REDIS_PREFIX,
    attempts: config.EMAIL_ATTEMPTS,
    backoff: { base: config.EMAIL_BACKOFF_BASE_MS, cap: config.EMAIL_BACKOFF_CAP_MS },
    tracerName: '@hireflow/notifications',
    fair: true,
    ...(logger ? { logger } : {}),
  };
}

/** The email queue over its task queue (made with `emailTaskOptions`). */
export function createEmailQueue<Tasks extends EmailTasks>(tasks: Tasks): EmailQueue<Tasks> {
  let pending: { tasks: BulkTask<EmailTask>[]; resolve(): void; reject(error: unknown): void }[] = [];
  const flush = () => {
    const calls = pending;
    pending = [];
    tasks.addBulk(calls.flatMap((call) => call.tasks)).then(
      () => {
        for (const call of calls) call.resolve();
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  };
  return {
    tasks,
    enqueue(requests) {
      if (requests.length === 0) return Promise.resolve();
      const active = context.active();
      return new Promise<void>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({
          tasks: requests.map((r) => ({
            name: r.template,
            data: r.tenantId ? { key: r.key, tenantId: r.tenantId } : { key: r.key },
            intentKey: r.key,
            context: active,
            tenantId: r.tenantId,
            lane: r.lane,
          })),
          resolve,
          reject,
        });
      });
    },
    close: () => tasks.close(),
  };
}
