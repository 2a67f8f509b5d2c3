/** Exponential backoff bounds; `base` and `cap` share a unit (seconds for SQS, ms for BullMQ). */
export interface BackoffOptions {
  base: number;
  cap: number;
}

/** A source of uniform numbers in [0, 1): `Math.random` unless a test injects one. */
export type RandomSource = () => number;

/** The full-jitter bound for a 0-based attempt: `min(cap, base * 2^attempt)`. */
export function backoffBound(attempt: number, options: BackoffOptions): number {
  return Math.min(options.cap, options.base * 2 ** Math.max(0, attempt));
}

/**
 * Exponential backoff with full jitter (docs/design.md): an integer drawn
 * uniformly from [0, min(cap, base * 2^attempt)]. The bound grows; each delay
 * is drawn below it, so retries of many failed messages spread out.
 */
export function fullJitter(
  attempt: number,
  options: BackoffOptions,
  random: RandomSource = Math.random,
): number {
  const bound = Math.floor(backoffBound(attempt, options));
  return Math.min(bound, Math.floor(random() * (bound + 1)));
}
