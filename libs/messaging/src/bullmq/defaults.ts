import type { DefaultJobOptions, Telemetry } from 'bullmq';
import type { BackoffOptions } from '../backoff.ts';
import { quietTelemetry } from './telemetry.ts';

/** Name of the registered full-jitter strategy (`backoff.type` of every job). */
export const FULL_JITTER = 'full-jitter';
export const DEFAULT_TASK_ATTEMPTS = 8;
/** Milliseconds: the first retry waits up to 1 s, then 2, 4, … never more than 10 min. */
export const DEFAULT_TASK_BACKOFF: BackoffOptions = { base: 1000, cap: 10 * 60 * 1000 };

/**
 * Completed jobs are kept a day (at most 1000) for inspection; failed jobs are
 * the dead letters: kept two weeks (at most 50 000), like an SQS DLQ.
 */
export const DEFAULT_REMOVE_ON_COMPLETE = { age: 24 * 3600, count: 1000 };
export const DEFAULT_REMOVE_ON_FAIL = { age: 14 * 24 * 3600, count: 50_000 };

export function defaultJobOptions(attempts: number, backoff: BackoffOptions): DefaultJobOptions {
  return {
    attempts,
    backoff: { type: FULL_JITTER, delay: backoff.base },
    removeOnComplete: DEFAULT_REMOVE_ON_COMPLETE,
    removeOnFail: DEFAULT_REMOVE_ON_FAIL,
  };
}

export function telemetry(tracerName: string | undefined): Telemetry {
  return quietTelemetry(tracerName ?? '@hireflow/messaging');
}
