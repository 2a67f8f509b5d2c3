import { createJobQueue, type JobQueue, type Logger, type RedisConnection } from '@hireflow/messaging';
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
  /** Adds one job per request, its id derived from the intent key: adding a key twice is a no-op. */
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
  return {
    jobs,
    async enqueue(requests) {
      await Promise.all(requests.map((r) => jobs.add(r.template, { key: r.key }, { intentKey: r.key })));
    },
    close: () => jobs.close(),
  };
}
