// The "dependency only unavailable" rule on the BullMQ side (docs/design.md,
// "Dependencies that are only unavailable"): a task whose failure only says
// a dependency was unreachable (isDependencyUnavailable, the classifier the
// SQS consumer uses) is moved to delayed with backoff, spending no attempt,
// until it has waited `maxUnavailableMs` since the first such failure in a
// row; only then does such a failure count. A task that failed for good only
// for a dependency is marked so (its failedReason starts with
// `dependency unavailable:`), and the sweeps run it again (TaskQueue.makeRoom).
import type { Redis } from 'ioredis';
import { fullJitter, type RandomSource } from '../backoff.ts';

/**
 * How long one task waits out an unreachable dependency before such a
 * failure counts as an attempt: twice the 15 minutes the rule asks for at
 * least, so an RDS Multi-AZ failover (60–120 s) or an ElastiCache one is
 * waited out many times over, as the SQS consumer's `maxDeferMs` (1 h) does.
 */
export const DEFAULT_MAX_UNAVAILABLE_MS = 30 * 60_000;
/**
 * The longest single wait: the backoff grows from the task's base (1 s by
 * default) but never past 30 s, so work resumes within half a minute of the
 * dependency's return, whatever the queue's failure backoff cap (10 min).
 */
export const UNAVAILABLE_WAIT_CAP_MS = 30_000;
/** No wait is shorter: a dependency that refuses at once is not hammered in a tight loop. */
export const UNAVAILABLE_MIN_WAIT_MS = 250;
/** The start of a dead letter's failedReason when it failed only because a dependency was unreachable. */
export const UNAVAILABLE_REASON = 'dependency unavailable';
/**
 * Field on the task's own BullMQ hash: the milliseconds of waits the task has
 * been given in its current run of unavailable failures. The bound is on this
 * sum, not on the time since the run's first failure: time the task spends
 * queued behind a backlog between two brief outages is not time waiting for
 * its dependency (docs/chaos.md, the third 10,000-event run).
 */
export const UNAVAILABLE_WAITED_FIELD = 'hfUnavailableWaitedMs';
/** Written by earlier versions (the run's first failure time); cleared with the run. */
const UNAVAILABLE_SINCE_FIELD = 'hfUnavailableSince';

/** A failure that only says a dependency was unreachable, past the wait bound: it counts. */
export class DependencyUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`${UNAVAILABLE_REASON}: ${message}`, options);
    this.name = 'DependencyUnavailableError';
  }
}

/** Whether a dead letter's reason says it failed only because a dependency was unreachable. */
export function failedOnlyForDependency(failedReason: string | null | undefined): boolean {
  return typeof failedReason === 'string' && failedReason.startsWith(`${UNAVAILABLE_REASON}:`);
}

// Adds ARGV[2] ms to the field of a task hash that exists (never creates a stray one).
const ADD_WAITED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])`;

/** The waits given so far in the task's current run of unavailable failures (ms). */
export async function unavailableWaited(redis: Redis, taskKey: string): Promise<number> {
  const waited = Number(await redis.hget(taskKey, UNAVAILABLE_WAITED_FIELD));
  return Number.isFinite(waited) && waited > 0 ? waited : 0;
}

/** Records a wait given for an unavailable dependency. */
export async function addUnavailableWait(redis: Redis, taskKey: string, waitMs: number): Promise<void> {
  await redis.eval(ADD_WAITED_SCRIPT, 1, taskKey, UNAVAILABLE_WAITED_FIELD, String(Math.round(waitMs)));
}

/** Ends the task's run of unavailable failures (a failure of another kind, a sweep's revival). */
export async function clearUnavailable(redis: Redis, taskKey: string): Promise<void> {
  await redis.hdel(taskKey, UNAVAILABLE_WAITED_FIELD, UNAVAILABLE_SINCE_FIELD);
}

/**
 * The wait before the next try: full jitter from the task's backoff base,
 * doubling with each wait so far, at most the queue's backoff cap and
 * UNAVAILABLE_WAIT_CAP_MS, at least
 * UNAVAILABLE_MIN_WAIT_MS, and never
 * past what is left of the bound.
 */
export function unavailableWaitMs(
  waits: number,
  options: { baseMs: number; capMs: number; leftMs: number; random?: RandomSource | undefined },
): number {
  const cap = Math.min(options.capMs, UNAVAILABLE_WAIT_CAP_MS);
  const drawn = fullJitter(waits, { base: options.baseMs, cap }, options.random);
  return Math.max(0, Math.min(Math.max(drawn, UNAVAILABLE_MIN_WAIT_MS), options.leftMs));
}
