import type { Lane, Logger, RedisConnection } from '@hireflow/messaging';
import { type BulkTask, createTaskQueue, type TaskQueue } from '@hireflow/messaging/tasks';
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

export interface EmailQueue {
  readonly tasks: TaskQueue<EmailTask>;
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

export function createEmailQueue(options: {
  connection: RedisConnection;
  prefix: string;
  attempts: number;
  backoff: { base: number; cap: number };
  logger?: Logger;
}): EmailQueue {
  const tasks = createTaskQueue<EmailTask>({
    name: EMAIL_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    backoff: options.backoff,
    tracerName: '@hireflow/notifications',
    fair: true,
    ...(options.logger ? { logger: options.logger } : {}),
  });
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
