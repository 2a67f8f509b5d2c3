import { signals } from '@hireflow/telemetry';
import { DelayedError, type Job, type Processor, Worker } from 'bullmq';
import { type BackoffOptions, fullJitter, type RandomSource } from '../backoff.ts';
import { type Logger, resolveLogger } from '../logger.ts';
import { retryLaterDelayMs, retryLaterOf } from '../retry-later.ts';
import { openConnection, type RedisConnection } from './connection.ts';
import { DEFAULT_TASK_BACKOFF, telemetry } from './defaults.ts';
import { limitTenants, type TenantLimit } from './tenant-limit.ts';

export const DEFAULT_WORKER_CONCURRENCY = 10;
export const DEFAULT_WORKER_CLOSE_TIMEOUT_MS = 10_000;
/**
 * How many times a job is taken back from a worker that died holding it
 * before it fails for good. BullMQ's default, 1, made a dead letter of a job
 * whose worker crashed twice (pools replace crashed workers as a matter of
 * course); a job that kills every worker it runs on still ends as one.
 */
export const JOB_MAX_STALLED = 5;
/**
 * How many times a task may come back later (`retryLater`) before a
 * retry-later counts as a failed attempt: with the rule's doubling (1 s to a
 * minute) about an hour and a half, with a holder's 15 s lease as its bound
 * about 25 minutes. A task that waits for ever still ends, as a dead letter.
 */
export const DEFAULT_MAX_RETRY_LATERS = 100;

export interface TaskWorkerOptions<Data, Result> {
  name: string;
  connection: RedisConnection;
  prefix?: string;
  processor: Processor<Data, Result>;
  concurrency?: number;
  /** Cap of the full-jitter backoff in ms (the base is each job's `backoff.delay`). */
  backoff?: BackoffOptions;
  random?: RandomSource;
  /** How long `close()` waits for running jobs before it forces the worker closed. */
  closeTimeoutMs?: number;
  /** A provider's rate limit: at most `max` jobs per `duration` ms across every worker of the queue. */
  limiter?: { max: number; duration: number };
  /** How long a job stays locked to a worker that stops renewing it (it died): then it is retried as stalled. */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs. */
  stalledIntervalMs?: number;
  /** Retry-laters of one task before one counts as a failed attempt (default 100). */
  maxRetryLaters?: number;
  /** At most this many running tasks per tenant across the queue's workers (tenant-limit.ts). */
  tenantLimit?: TenantLimit<Data>;
  tracerName?: string;
  logger?: Logger;
}

export interface TaskWorker<Data, Result> {
  readonly worker: Worker<Data, Result>;
  /** Waits up to `closeTimeoutMs` for running jobs, then forces; returns whether it had to force. */
  close(): Promise<{ forced: boolean }>;
}

/**
 * A BullMQ worker with the project's defaults: the full-jitter backoff
 * strategy registered, tracing, and a close that cannot hang on a stuck job.
 * Throw `PermanentError` (or BullMQ's `UnrecoverableError`) to skip retries,
 * `retryLater(…)` (or let another holder's "in progress" through) to come back
 * later without spending an attempt.
 */
export function createTaskWorker<Data, Result = unknown>(
  options: TaskWorkerOptions<Data, Result>,
): TaskWorker<Data, Result> {
  const connection = openConnection(options.connection, true);
  const log = resolveLogger(options.logger, 'job-worker').child({ queue: options.name });
  const cap = options.backoff?.cap ?? DEFAULT_TASK_BACKOFF.cap;
  const processor = options.tenantLimit
    ? limitTenants(options.processor, options.tenantLimit, options, connection.redis)
    : options.processor;
  const worker = new Worker<Data, Result>(options.name, comingBackLater({ ...options, processor }), {
    connection: connection.redis,
    prefix: options.prefix,
    concurrency: options.concurrency ?? DEFAULT_WORKER_CONCURRENCY,
    ...(options.limiter ? { limiter: options.limiter } : {}),
    ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
    maxStalledCount: JOB_MAX_STALLED,
    telemetry: telemetry(options.tracerName),
    settings: {
      // Called for every non-builtin backoff type; attemptsMade is 1 after the first failure.
      backoffStrategy: (attemptsMade: number, _type?: string, _err?: Error, job?: { opts: Job['opts'] }) => {
        const backoff = job?.opts.backoff;
        const base =
          typeof backoff === 'object'
            ? (backoff.delay ?? DEFAULT_TASK_BACKOFF.base)
            : (backoff ?? DEFAULT_TASK_BACKOFF.base);
        return fullJitter(attemptsMade - 1, { base, cap }, options.random);
      },
    },
  });
  const durationOf = (job: Job | undefined) =>
    job?.processedOn && job.finishedOn ? job.finishedOn - job.processedOn : undefined;
  worker.on('completed', (job) => {
    signals.job.publish({
      queue: options.name,
      name: job.name,
      outcome: 'completed',
      durationMs: durationOf(job),
    });
  });
  worker.on('failed', (job, error) => {
    const attempts = job?.opts.attempts ?? 1;
    const final = !job || job.attemptsMade >= attempts || error.name === 'UnrecoverableError';
    // A job moved to delayed by its processor (DelayedError) is not a failure.
    if (error.name !== 'DelayedError') {
      signals.job.publish({
        queue: options.name,
        name: job?.name ?? 'unknown',
        outcome: final ? 'dead' : 'failed',
        durationMs: durationOf(job),
      });
    }
    if (final) log.error({ err: error, jobId: job?.id }, 'job failed for good: kept as a dead letter');
  });
  worker.on('error', (error) => log.error({ err: error }, 'worker error'));
  return {
    worker,
    async close() {
      const timeoutMs = options.closeTimeoutMs ?? DEFAULT_WORKER_CLOSE_TIMEOUT_MS;
      // `close()` then `close(true)` would not work: a second close returns the
      // first one's promise, which waits for the stuck job. Pausing waits for
      // running jobs the same way but can be abandoned.
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        worker.pause().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (!drained)
        log.warn({ timeoutMs }, 'jobs still running at close: forcing; they will be retried as stalled');
      await worker.close(!drained);
      await connection.release();
      return { forced: !drained };
    },
  };
}

/**
 * The processor, with the retry-later rule: a task that asks to come back
 * later is moved to delayed by the rule's delay (BullMQ's moveToDelayed skips
 * the attempt) and reported as delayed, not failed. Past `maxRetryLaters`
 * waits the retry-later counts as a failed attempt.
 */
function comingBackLater<Data, Result>(options: TaskWorkerOptions<Data, Result>): Processor<Data, Result> {
  const maxWaits = options.maxRetryLaters ?? DEFAULT_MAX_RETRY_LATERS;
  return async (job, token, signal) => {
    try {
      return await options.processor(job, token, signal);
    } catch (error) {
      const later = retryLaterOf(error);
      if (!later) throw error;
      const waits = retryLatersOf(job);
      if (waits >= maxWaits)
        throw new Error(`came back later ${waits} times: ${later.message}`, { cause: error });
      await job.moveToDelayed(Date.now() + retryLaterDelayMs(later, waits), token);
      throw new DelayedError();
    }
  };
}

/** Waits of a task so far: every start that was neither a failure, a stall nor this run. */
function retryLatersOf(job: Job): number {
  return Math.max(0, (job.attemptsStarted ?? 0) - job.attemptsMade - (job.stalledCounter ?? 0) - 1);
}
