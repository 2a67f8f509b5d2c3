import { signals } from '@hireflow/contracts/signals';
import type { Job, Processor, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { type BackoffOptions, fullJitter, type RandomSource } from '../backoff.ts';
import { isDependencyUnavailable, isPermanent } from '../errors.ts';
import { type Logger, resolveLogger } from '../logger.ts';
import { retryLaterDelayMs, retryLaterOf } from '../retry-later.ts';
import { DelayedError, Worker as WorkerClass } from './classes.ts';
import { openConnection, type RedisConnection } from './connection.ts';
import { DEFAULT_TASK_BACKOFF, telemetry } from './defaults.ts';
import { type Headroom, openHeadroom } from './headroom.ts';
import { limitTenants, type TenantLimit } from './tenant-limit.ts';
import {
  addUnavailableWait,
  clearUnavailable,
  DEFAULT_MAX_UNAVAILABLE_MS,
  DependencyUnavailableError,
  UNAVAILABLE_MIN_WAIT_MS,
  unavailableWaited,
  unavailableWaitMs,
} from './unavailable.ts';

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
  /**
   * How long a task waits out a dependency that is only unreachable
   * (isDependencyUnavailable) before such a failure counts as an attempt
   * (default 30 min; unavailable.ts).
   */
  maxUnavailableMs?: number;
  /** At most this many running tasks per tenant across the queue's workers (tenant-limit.ts). */
  tenantLimit?: TenantLimit<Data>;
  /**
   * Slots beyond `concurrency` for a task that jumps a line of a fair queue
   * (a newcomer's, an interactive one while bulk work waits: fair.ts): when
   * every slot is busy and such a task is announced, the worker takes up to
   * this many more tasks at once instead of waiting for one of its own to
   * finish, then shrinks back to `concurrency` as they end (headroom.ts).
   * Default 0. Shut while nothing jumps: it costs nothing then.
   */
  headroom?: number;
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
 * later without spending an attempt. A failure that only says a dependency
 * was unreachable is waited out the same way, up to `maxUnavailableMs`.
 */
export function createTaskWorker<Data, Result = unknown>(
  options: TaskWorkerOptions<Data, Result>,
): TaskWorker<Data, Result> {
  const connection = openConnection(options.connection, true);
  const log = resolveLogger(options.logger, 'job-worker').child({ queue: options.name });
  const cap = options.backoff?.cap ?? DEFAULT_TASK_BACKOFF.cap;
  const limited = options.tenantLimit
    ? limitTenants(options.processor, options.tenantLimit, options, connection.redis)
    : options.processor;
  const concurrency = options.concurrency ?? DEFAULT_WORKER_CONCURRENCY;
  // Opened once the worker exists; counts the tasks running in this worker.
  let headroom: Headroom | undefined;
  const processor: Processor<Data, Result> = (job, token, signal) =>
    headroom ? headroom.run(() => limited(job, token, signal)) : limited(job, token, signal);
  // The processor needs the worker's keys; it runs only once the worker exists.
  let keyOf: (id: string) => string = () => {
    throw new Error('worker not built yet');
  };
  const rules = { redis: connection.redis, keyOf: (id: string) => keyOf(id), log, capMs: cap };
  const worker = new WorkerClass<Data, Result>(
    options.name,
    comingBackLater({ ...options, processor }, rules),
    {
      connection: connection.redis,
      prefix: options.prefix,
      concurrency,
      ...(options.limiter ? { limiter: options.limiter } : {}),
      ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
      ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      maxStalledCount: JOB_MAX_STALLED,
      telemetry: telemetry(options.tracerName),
      settings: {
        // Called for every non-builtin backoff type; attemptsMade is 1 after the first failure.
        backoffStrategy: (attemptsMade: number, _type?: string, _err?: Error, job?: { opts: Job['opts'] }) =>
          fullJitter(attemptsMade - 1, { base: backoffBaseOf(job), cap }, options.random),
      },
    },
  );
  keyOf = (id) => worker.toKey(id);
  if ((options.headroom ?? 0) > 0)
    headroom = openHeadroom(worker, connection.redis, { concurrency, slots: options.headroom!, log });
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
      await headroom?.close();
      await connection.release();
      return { forced: !drained };
    },
  };
}

/** A task's backoff base in ms: its `backoff.delay`. */
function backoffBaseOf(job: { opts: Job['opts'] } | undefined): number {
  const backoff = job?.opts.backoff;
  return typeof backoff === 'object'
    ? (backoff.delay ?? DEFAULT_TASK_BACKOFF.base)
    : (backoff ?? DEFAULT_TASK_BACKOFF.base);
}

interface Rules {
  redis: Redis;
  /** The Redis key of a task's hash. */
  keyOf(id: string): string;
  log: Logger;
  /** The queue's backoff cap (ms). */
  capMs: number;
}

/**
 * The processor, with the two "come back later" rules, both by BullMQ's
 * moveToDelayed (which spends no attempt) and reported as delayed, not
 * failed:
 * - a task that asks to come back later waits the retry-later rule's delay;
 *   past `maxRetryLaters` waits the retry-later counts as a failed attempt;
 * - a failure that only says a dependency was unreachable waits with backoff
 *   (unavailable.ts) until the waits it was given in its run of such
 *   failures add up to `maxUnavailableMs` (time queued behind a backlog is
 *   not a wait); then it counts, marked as such for the
 *   sweeps. Any other failure counts at once and ends the run.
 */
function comingBackLater<Data, Result>(
  options: TaskWorkerOptions<Data, Result>,
  rules: Rules,
): Processor<Data, Result> {
  const maxWaits = options.maxRetryLaters ?? DEFAULT_MAX_RETRY_LATERS;
  const maxUnavailableMs = options.maxUnavailableMs ?? DEFAULT_MAX_UNAVAILABLE_MS;
  return async (job, token, signal) => {
    try {
      return await options.processor(job, token, signal);
    } catch (error) {
      const later = retryLaterOf(error);
      if (later) {
        const waits = retryLatersOf(job);
        if (waits >= maxWaits)
          throw new Error(`came back later ${waits} times: ${later.message}`, { cause: error });
        await job.moveToDelayed(Date.now() + retryLaterDelayMs(later, waits), token);
        throw new DelayedError();
      }
      const key = rules.keyOf(job.id!);
      if (isPermanent(error) || !isDependencyUnavailable(error)) {
        await clearUnavailable(rules.redis, key).catch(() => undefined);
        throw error;
      }
      const waitedMs = await unavailableWaited(rules.redis, key);
      const message = error instanceof Error ? error.message : String(error);
      if (waitedMs >= maxUnavailableMs) {
        throw new DependencyUnavailableError(`${message} (waited ${Math.round(waitedMs / 1000)} s)`, {
          cause: error,
        });
      }
      const delayMs = unavailableWaitMs(retryLatersOf(job), {
        baseMs: backoffBaseOf(job),
        capMs: rules.capMs,
        leftMs: maxUnavailableMs - waitedMs,
        random: options.random,
      });
      rules.log.warn({ err: error, jobId: job.id, delayMs, waitedMs }, 'dependency unavailable; waiting');
      // Counted before the move: a crash between them overcounts a wait, never forgets one.
      await addUnavailableWait(rules.redis, key, Math.max(delayMs, UNAVAILABLE_MIN_WAIT_MS));
      await job.moveToDelayed(Date.now() + delayMs, token);
      throw new DelayedError();
    }
  };
}

/** Waits of a task so far: every start that was neither a failure, a stall nor this run. */
function retryLatersOf(job: Job): number {
  return Math.max(0, (job.attemptsStarted ?? 0) - job.attemptsMade - (job.stalledCounter ?? 0) - 1);
}
