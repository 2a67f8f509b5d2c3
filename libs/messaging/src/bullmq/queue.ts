import type { Context } from '@opentelemetry/api';
import type { JobsOptions, Queue } from 'bullmq';
import type { BackoffOptions } from '../backoff.ts';
import { type Logger, resolveLogger } from '../logger.ts';
import { untraced } from '../quiet.ts';
import { withTimeout } from '../timeout.ts';
import { Queue as QueueClass } from './classes.ts';
import { openConnection, type RedisConnection } from './connection.ts';
import { DEFAULT_TASK_ATTEMPTS, DEFAULT_TASK_BACKOFF, defaultJobOptions, telemetry } from './defaults.ts';
import {
  createFairness,
  DEFAULT_BACKLOG_SAMPLE_MS,
  type FairnessOptions,
  type FairTask,
  sampleTenantBacklogs,
} from './fair.ts';
import { taskIdFor } from './task-id.ts';
import { clearUnavailable, failedOnlyForDependency } from './unavailable.ts';

export interface TaskQueueOptions {
  name: string;
  connection: RedisConnection;
  /** Redis key prefix: the service's own (docs/design.md). */
  prefix?: string;
  attempts?: number;
  /**
   * How long `add` may wait for Redis (default 5 s). With Redis away, ioredis
   * would queue the command until it is back: a handler that adds a job
   * would hang and hold its message instead of failing and letting it come
   * back later.
   */
  addTimeoutMs?: number;
  /** Backoff in ms; `base` becomes each job's `backoff.delay`. */
  backoff?: BackoffOptions;
  tracerName?: string;
  logger?: Logger;
  /** Take tasks round-robin by tenant, interactive lane first (fair.ts, docs/fairness.md). */
  fair?: boolean | FairnessOptions;
}

export interface BulkTask<Data> extends FairTask {
  name: string;
  data: Data;
  intentKey: string;
  /** The trace this job belongs to. */
  context: Context;
}

// BullMQ's SpanKind numbering (OpenTelemetry's) and its span attribute names.
const PRODUCER = 3;

export interface DeadLetter<Data> {
  id: string | undefined;
  name: string;
  data: Data;
  failedReason: string;
  attemptsMade: number;
  finishedOn: number | undefined;
}

/**
 * A queue of tasks: what services hand to BullMQ (BullMQ calls each a job;
 * inside this library both words name the same thing).
 */
export interface TaskQueue<Data> {
  readonly queue: Queue<Data>;
  /** Adds a job whose id is derived from the intent key: a duplicate add is a no-op. */
  add(
    name: string,
    data: Data,
    options: { intentKey: string } & FairTask & Omit<JobsOptions, 'jobId'>,
  ): Promise<string>;
  /**
   * Adds many jobs in one Redis round trip (BullMQ's addBulk), each as `add`
   * would: its id derived from its intent key, and its own trace. Each job
   * gets an `add <queue>` producer span in the context given with it (the
   * caller's, when the jobs of several callers are added together), and
   * carries that span's context to the worker, so its processing joins the
   * trace it was added in, never another job's.
   */
  addBulk(jobs: BulkTask<Data>[]): Promise<string[]>;
  /**
   * For a sweep that adds lost work again: gets the intent key's id ready for
   * a new add. `free`: no task holds it (none, or a completed or orphaned
   * one, now removed: BullMQ ignores an add whose id exists); `failed`: a dead letter
   * holds it (`retryDeadLetter`, or leave it to be read); `pending`: waiting,
   * delayed or running, it will run. A dead letter that failed only because a
   * dependency was unreachable (bullmq/unavailable.ts) is no verdict on the
   * work: it is run again here, with fresh attempts, and reported `pending`.
   */
  makeRoom(intentKey: string): Promise<'free' | 'failed' | 'pending'>;
  /** Runs the dead letter of an intent key again (BullMQ's retry of a failed job). */
  retryDeadLetter(intentKey: string): Promise<void>;
  /** Jobs that failed for good (attempts exhausted or permanent failure). */
  deadLetterCount(): Promise<number>;
  deadLetters(start?: number, end?: number): Promise<DeadLetter<Data>[]>;
  close(): Promise<void>;
}

/** A BullMQ queue with the project's defaults (attempts, full-jitter backoff, bounded retention, tracing). */
export const DEFAULT_ADD_TIMEOUT_MS = 5000;

export function createTaskQueue<Data>(options: TaskQueueOptions): TaskQueue<Data> {
  const connection = openConnection(options.connection, false);
  const addTimeoutMs = options.addTimeoutMs ?? DEFAULT_ADD_TIMEOUT_MS;
  const tracing = telemetry(options.tracerName);
  const queue = new QueueClass<Data>(options.name, {
    connection: connection.redis,
    prefix: options.prefix,
    telemetry: tracing,
    defaultJobOptions: defaultJobOptions(
      options.attempts ?? DEFAULT_TASK_ATTEMPTS,
      options.backoff ?? DEFAULT_TASK_BACKOFF,
    ),
  });
  // A Redis outage makes the queue emit errors while it reconnects: log them, do not crash or print.
  const log = resolveLogger(options.logger, 'job-queue').child({ queue: options.name });
  queue.on('error', (error) => log.warn({ err: error }, 'queue connection error'));
  const fair = options.fair === true ? {} : options.fair || undefined;
  const fairness = fair ? createFairness(queue, connection.redis, fair) : undefined;
  const backlogMs = fair?.backlogSampleMs ?? DEFAULT_BACKLOG_SAMPLE_MS;
  const stopSampling =
    fair && backlogMs > 0 ? sampleTenantBacklogs(queue, connection.redis, backlogMs, log) : undefined;
  return {
    queue,
    async add(name, data, { intentKey, tenantId, lane, ...rest }) {
      const placement = fairness
        ? await withTimeout(fairness.priority({ tenantId, lane }), addTimeoutMs, `ordering ${name}`)
        : undefined;
      // biome-ignore lint/suspicious/noExplicitAny: BullMQ's name/data generics do not narrow here
      const adding = (queue as Queue<any>).add(name, data, {
        priority: placement?.priority,
        ...rest,
        jobId: taskIdFor(intentKey),
      });
      // Should Redis come back later, the queued add still lands: harmless, the job id is the intent's.
      adding.catch(() => undefined);
      const job = await withTimeout(adding, addTimeoutMs, `adding job ${name} to ${options.name}`);
      // Once it is in the queue (a worker's headroom takes the head of the queue).
      if (placement?.jumps) fairness?.announce(1);
      return job.id!;
    },
    async addBulk(jobs) {
      if (jobs.length === 0) return [];
      const placements = fairness
        ? await withTimeout(fairness.priorities(jobs), addTimeoutMs, `ordering ${jobs.length} jobs`)
        : [];
      const traced = jobs.map((job) => {
        const jobId = taskIdFor(job.intentKey);
        const span = tracing.tracer.startSpan(`add ${options.name}`, { kind: PRODUCER }, job.context);
        span.setAttributes({
          'bullmq.queue.name': options.name,
          'bullmq.queue.operation': 'add',
          'bullmq.job.name': job.name,
          'bullmq.job.id': jobId,
        });
        const metadata = tracing.contextManager.getMetadata(span.setSpanOnContext(job.context));
        return { job, jobId, span, metadata };
      });
      // The bulk itself is no one's operation: untraced, so it starts no span of its own and
      // every job keeps the metadata given here (BullMQ's addBulk would give them all its own).
      const adding = untraced(() =>
        // biome-ignore lint/suspicious/noExplicitAny: BullMQ's name/data generics do not narrow here
        (queue as Queue<any>).addBulk(
          traced.map(({ job, jobId, metadata }, i) => ({
            name: job.name,
            data: job.data,
            opts: { jobId, priority: placements[i]?.priority, telemetry: { metadata } },
          })),
        ),
      );
      adding.catch(() => undefined);
      try {
        const added = await withTimeout(
          adding,
          addTimeoutMs,
          `adding ${jobs.length} jobs to ${options.name}`,
        );
        fairness?.announce(placements.filter((p) => p.jumps).length);
        return added.map((job) => job.id!);
      } catch (error) {
        for (const { span } of traced) span.recordException(error as Error);
        throw error;
      } finally {
        for (const { span } of traced) span.end();
      }
    },
    async makeRoom(intentKey) {
      const job = await queue.getJob(taskIdFor(intentKey));
      const state = job ? await job.getState() : 'missing';
      if (state === 'failed' && job && failedOnlyForDependency(job.failedReason)) {
        await clearUnavailable(connection.redis, queue.toKey(job.id!));
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        log.warn({ jobId: job.id }, 'a task that failed only for a dependency runs again');
        return 'pending';
      }
      if (state === 'failed') return 'failed';
      if (state !== 'completed' && state !== 'missing' && state !== 'unknown') return 'pending';
      // A completed task, or one in no state (its hash orphaned): either would swallow the add.
      // Another sweeper may have removed it (and added it again) meanwhile: harmless either way.
      if (job) await job.remove().catch(() => undefined);
      return 'free';
    },
    async retryDeadLetter(intentKey) {
      await (await queue.getJob(taskIdFor(intentKey)))?.retry('failed');
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
      stopSampling?.();
      await queue.close();
      await connection.release();
    },
  };
}
