import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

// BullMQ's dead letters: a job that failed its last attempt stays in the
// queue's `failed` set (the services keep them: docs/reliability.md). These
// helpers find, show and retry them the way `pnpm dlq` does SQS's.

export interface DeadJobSet {
  /** The service's Redis prefix (REDIS_PREFIX), e.g. `hf:notifications`. */
  prefix: string;
  queue: string;
  depth: number;
}

/**
 * Every BullMQ queue under `prefixes` with dead letters. Found in Redis, not
 * from a list: a queue's `failed` set exists only while it holds jobs.
 */
export async function deadJobSets(redis: Redis, prefixes: string[]): Promise<DeadJobSet[]> {
  const found: DeadJobSet[] = [];
  for (const prefix of prefixes) {
    const queues = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*:failed`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const queue = key.slice(prefix.length + 1, -':failed'.length);
        // Job ids never hold a colon (BullMQ refuses them), so a longer middle is another key.
        if (queue && !queue.includes(':')) queues.add(queue);
      }
    } while (cursor !== '0');
    for (const queue of [...queues].sort()) {
      const depth = await redis.zcard(`${prefix}:${queue}:failed`);
      if (depth > 0) found.push({ prefix, queue, depth });
    }
  }
  return found;
}

export interface DeadJobView {
  id: string;
  name: string;
  attemptsMade: number;
  failedReason: string;
  failedAt: string | undefined;
  /** Only with `show`: the job's data (ids, never personal data: docs/security.md) and its last stack. */
  data?: unknown;
  stacktrace?: string[];
}

function view(job: Job, full: boolean): DeadJobView {
  return {
    id: job.id ?? '',
    name: job.name,
    attemptsMade: job.attemptsMade,
    failedReason: job.failedReason,
    failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
    ...(full ? { data: job.data, stacktrace: job.stacktrace ?? [] } : {}),
  };
}

/** A queue handle for the dead letters of `prefix`/`queue` (close it when done). */
export function deadJobQueue(redis: Redis, prefix: string, queue: string): Queue {
  return new Queue(queue, { connection: redis, prefix });
}

/** Up to `max` dead letters, oldest failure first. */
export async function listDeadJobs(queue: Queue, max = 10): Promise<DeadJobView[]> {
  const jobs = await queue.getJobs(['failed'], 0, Math.max(0, max - 1), true);
  return jobs.filter(Boolean).map((job) => view(job, false));
}

/** One dead letter in full, or undefined when `id` is not one (any more). */
export async function showDeadJob(queue: Queue, id: string): Promise<DeadJobView | undefined> {
  const job = await queue.getJob(id);
  if (!job || (await job.getState()) !== 'failed') return undefined;
  return view(job, true);
}

/**
 * Moves dead letters back to waiting with their attempts reset, so each gets
 * the queue's full retry budget again; its processor's idempotency decides
 * whether the work still needs doing. `ids` picks jobs, else the oldest
 * `max`. With `dryRun`, reports what it would retry and changes nothing.
 */
export async function retryDeadJobs(
  queue: Queue,
  options: { ids?: string[]; max?: number; dryRun?: boolean } = {},
): Promise<DeadJobView[]> {
  const jobs = options.ids
    ? await Promise.all(options.ids.map((id) => queue.getJob(id)))
    : await queue.getJobs(['failed'], 0, options.max === undefined ? -1 : Math.max(0, options.max - 1), true);
  const retried: DeadJobView[] = [];
  for (const job of jobs) {
    if (!job || (await job.getState()) !== 'failed') continue;
    if (!options.dryRun) await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    retried.push(view(job, false));
  }
  return retried;
}
