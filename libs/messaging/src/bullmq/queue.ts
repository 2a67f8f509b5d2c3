import { type JobsOptions, Queue } from 'bullmq';
import type { BackoffOptions } from '../backoff.ts';
import { openConnection, type RedisConnection } from './connection.ts';
import { DEFAULT_JOB_ATTEMPTS, DEFAULT_JOB_BACKOFF, defaultJobOptions, telemetry } from './defaults.ts';
import { jobIdFor } from './job-id.ts';

export interface JobQueueOptions {
  name: string;
  connection: RedisConnection;
  /** Redis key prefix: the service's own (docs/design.md). */
  prefix?: string;
  attempts?: number;
  /** Backoff in ms; `base` becomes each job's `backoff.delay`. */
  backoff?: BackoffOptions;
  tracerName?: string;
}

export interface DeadLetter<Data> {
  id: string | undefined;
  name: string;
  data: Data;
  failedReason: string;
  attemptsMade: number;
  finishedOn: number | undefined;
}

export interface JobQueue<Data> {
  readonly queue: Queue<Data>;
  /** Adds a job whose id is derived from the intent key: a duplicate add is a no-op. */
  add(name: string, data: Data, options: { intentKey: string } & Omit<JobsOptions, 'jobId'>): Promise<string>;
  /** Jobs that failed for good (attempts exhausted or permanent failure). */
  deadLetterCount(): Promise<number>;
  deadLetters(start?: number, end?: number): Promise<DeadLetter<Data>[]>;
  close(): Promise<void>;
}

/** A BullMQ queue with the project's defaults (attempts, full-jitter backoff, bounded retention, tracing). */
export function createJobQueue<Data>(options: JobQueueOptions): JobQueue<Data> {
  const connection = openConnection(options.connection, false);
  const queue = new Queue<Data>(options.name, {
    connection: connection.redis,
    prefix: options.prefix,
    telemetry: telemetry(options.tracerName),
    defaultJobOptions: defaultJobOptions(
      options.attempts ?? DEFAULT_JOB_ATTEMPTS,
      options.backoff ?? DEFAULT_JOB_BACKOFF,
    ),
  });
  return {
    queue,
    async add(name, data, { intentKey, ...rest }) {
      // biome-ignore lint/suspicious/noExplicitAny: BullMQ's name/data generics do not narrow here
      const job = await (queue as Queue<any>).add(name, data, { ...rest, jobId: jobIdFor(intentKey) });
      return job.id!;
    },
    deadLetterCount: () => queue.getFailedCount(),
    async deadLetters(start = 0, end = 99) {
      const jobs = await queue.getFailed(start, end);
      return jobs.map((job) => ({
        id: job.id,
        name: job.name,
        data: job.data as Data,
        failedReason: job.failedReason,
        attemptsMade: job.attemptsMade,
        finishedOn: job.finishedOn,
      }));
    },
    async close() {
      await queue.close();
      await connection.release();
    },
  };
}
