import { fullJitter, type RandomSource } from '@hireflow/messaging';

// When a failed delivery is tried again, and when an endpoint's circuit
// opens (docs/webhooks.md, "Retries"): pure, so the schedule has specs.

export interface RetrySchedule {
  /** Full-jitter base: retry n waits random(0, min(cap, base × 2^n)). */
  baseMs: number;
  capMs: number;
  /** A delivery is retried until this long after it was created. */
  windowMs: number;
}

/** After attempt `attempts` (1 for the first) failed: when to try again, or undefined when the window is over. */
export function nextAttemptAt(
  schedule: RetrySchedule,
  attempts: number,
  createdAt: Date,
  now: Date,
  random?: RandomSource,
): Date | undefined {
  const end = createdAt.getTime() + schedule.windowMs;
  if (now.getTime() >= end) return undefined;
  const delay = fullJitter(attempts - 1, { base: schedule.baseMs, cap: schedule.capMs }, random);
  return new Date(Math.min(now.getTime() + delay, end));
}

/** Consecutive failures of an endpoint that open its circuit. */
export const BREAKER_THRESHOLD = 5;
/** The longest an open circuit waits before its next probe. */
export const BREAKER_MAX_OPEN_MS = 10 * 60_000;
const BREAKER_FIRST_OPEN_MS = 15_000;

/**
 * After `failures` consecutive failures: until when the circuit stays open
 * (no attempt goes out; one probe after it), or null while it stays closed.
 * 15 s after the fifth failure, doubling with each failed probe, at most 10 min.
 */
export function circuitOpenUntil(failures: number, now: Date): Date | null {
  if (failures < BREAKER_THRESHOLD) return null;
  const ms = Math.min(BREAKER_MAX_OPEN_MS, BREAKER_FIRST_OPEN_MS * 2 ** (failures - BREAKER_THRESHOLD));
  return new Date(now.getTime() + ms);
}

export type AttemptOutcome = 'delivered' | 'gone' | 'failed';

/** A 2xx is success; 410 Gone disables the endpoint; anything else is retried. */
export function outcomeOf(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode === 410) return 'gone';
  return 'failed';
}
