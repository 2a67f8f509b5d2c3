import { ImageTimeoutError } from './errors.ts';

export interface ImageLimiterOptions {
  /** Images processed at once (sharp uses one thread per image here; libuv's pool has 4). */
  concurrency?: number;
  /** A task still running after this long fails with ImageTimeoutError and frees its slot. */
  timeoutMs?: number;
}

export interface ImageLimiter {
  /**
   * Runs `task` once a slot is free; its `signal` aborts (reason: the
   * ImageTimeoutError) when the task outlives the timeout. The timeout counts
   * from the start of the task, not from the time spent queued; `timeoutMs`
   * overrides the limiter's for this task.
   */
  run<T>(task: (signal: AbortSignal) => Promise<T>, options?: { timeoutMs?: number }): Promise<T>;
  /** Tasks running now (a timed-out task no longer counts). */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly queued: number;
}

/**
 * At most `concurrency` image tasks at once, in arrival order. A task that
 * hangs gives its slot back at its timeout, so one bad image never holds up the
 * others; whatever it still runs in libvips stops at sharp's own timeout
 * (makeVariants sets it from the same limit).
 */
export function createImageLimiter(options: ImageLimiterOptions = {}): ImageLimiter {
  const concurrency = options.concurrency ?? 4;
  const defaultTimeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 30_000);
  positiveInteger('concurrency', concurrency);
  let active = 0;
  const waiting: (() => void)[] = [];

  // A freed slot passes straight to the next waiter (`active` unchanged), so a
  // caller arriving in between cannot take it as well.
  const acquire = async () => {
    if (active < concurrency) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };

  return {
    async run<T>(
      task: (signal: AbortSignal) => Promise<T>,
      runOptions: { timeoutMs?: number } = {},
    ): Promise<T> {
      const timeoutMs = positiveInteger('timeoutMs', runOptions.timeoutMs ?? defaultTimeoutMs);
      await acquire();
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new ImageTimeoutError(timeoutMs);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
      });
      try {
        // a task that throws synchronously is a rejection like any other
        return await Promise.race([Promise.resolve().then(() => task(controller.signal)), timedOut]);
      } finally {
        clearTimeout(timer);
        release();
      }
    },
    get active() {
      return active;
    },
    get queued() {
      return waiting.length;
    },
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`image limiter ${name} must be a positive integer, got ${value}`);
  }
  return value;
}
