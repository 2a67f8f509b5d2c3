import {
  type BulkJob,
  createJobQueue,
  type JobQueue,
  type Logger,
  type RedisConnection,
} from '@hireflow/messaging';
import { context } from '@opentelemetry/api';
import type { TemplateName } from '../../db/entities.ts';

export const EMAIL_QUEUE = 'email';

/**
 * An email job carries only its intent key: recipient, template and params
 * are in the notification log, so no personal data sits in Redis and every
 * retry renders exactly what was recorded.
 */
export interface EmailJob {
  key: string;
}

export interface EmailRequest {
  key: string;
  template: TemplateName;
}

export interface EmailQueue {
  readonly jobs: JobQueue<EmailJob>;
  /**
   * Adds one job per request, its id derived from the intent key: adding a
   * key twice is a no-op. The requests of every call made in one turn of the
   * event loop (the handlers of one SQS receive batch, resolved by one
   * commit) go to Redis in one addBulk; each job carries the trace of the
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
  const jobs = createJobQueue<EmailJob>({
    name: EMAIL_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    backoff: options.backoff,
    tracerName: '@hireflow/notifications',
    ...(options.logger ? { logger: options.logger } : {}),
  });
  let pending: { jobs: BulkJob<EmailJob>[]; resolve(): void; reject(error: unknown): void }[] = [];
  const flush = () => {
    const calls = pending;
    pending = [];
    jobs.addBulk(calls.flatMap((call) => call.jobs)).then(
      () => {
        for (const call of calls) call.resolve();
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  };
  return {
    jobs,
    enqueue(requests) {
      if (requests.length === 0) return Promise.resolve();
      const active = context.active();
      return new Promise<void>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({
          jobs: requests.map((r) => ({
            name: r.template,
            data: { key: r.key },
            intentKey: r.key,
            context: active,
          })),
          resolve,
          reject,
        });
      });
    },
    close: () => jobs.close(),
  };
}
