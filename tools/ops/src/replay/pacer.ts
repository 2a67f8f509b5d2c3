import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
};

/**
 * Spaces sends so that events leave at `ratePerSecond` on average (0: as fast
 * as they can). A sender that falls behind does not catch up in a burst: the
 * schedule restarts from now, so the rate is a ceiling the consumer can count on.
 */
export class Pacer {
  readonly #intervalMs: number;
  readonly #clock: Clock;
  #next = Number.NEGATIVE_INFINITY;

  constructor(ratePerSecond: number, clock: Clock = systemClock) {
    this.#intervalMs = ratePerSecond > 0 ? 1000 / ratePerSecond : 0;
    this.#clock = clock;
  }

  /** Waits until `count` more events may go. */
  async take(count: number, signal?: AbortSignal): Promise<void> {
    if (this.#intervalMs === 0) return;
    const now = this.#clock.now();
    const start = Math.max(now, this.#next);
    this.#next = start + count * this.#intervalMs;
    if (start > now) await this.#clock.sleep(start - now, signal);
  }
}
