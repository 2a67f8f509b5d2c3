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
/** Field on the task's own BullMQ hash: when the current run of unavailable failures began (ms). */
export const UNAVAILABLE_SINCE_FIELD = 'hfUnavailableSince';

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

// Sets the field unless set, on a task hash that exists (never creates a stray one); returns it.
const SINCE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return ARGV[2] end
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])`;

/** When the task's current run of unavailable failures began: `now` for its first. */
export async function unavailableSince(redis: Redis, taskKey: string, now: number): Promise<number> {
  const value = await redis.eval(SINCE_SCRIPT, 1, taskKey, UNAVAILABLE_SINCE_FIELD, String(now));
  const since = Number(value);
  return Number.isFinite(since) && since <= now ? since : now;
}

/** Ends the task's run of unavailable failures (a failure of another kind, a sweep's revival). */
export async function clearUnavailable(redis: Redis, taskKey: string): Promise<void> {
  await redis.hdel(taskKey, UNAVAILABLE_SINCE_FIELD);
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
