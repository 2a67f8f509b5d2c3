import { describe, expect, it } from 'vitest';
import { PermanentError } from './errors.ts';
import {
  DeferError,
  RETRY_LATER_CAP_MS,
  RetryLaterError,
  retryLater,
  retryLaterDelayMs,
  retryLaterOf,
} from './retry-later.ts';

const held = (retryAfterMs?: number) =>
  Object.assign(new Error('idempotency key k is being processed by another holder'), {
    retryable: true,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe('retryLaterDelayMs: the one rule', () => {
  it('uses the delay asked for as it is', () => {
    expect(retryLaterDelayMs(retryLater('projection not ready', 5000), 3)).toBe(5000);
    expect(retryLaterDelayMs(retryLater('now', 0), 0)).toBe(0);
    expect(retryLaterDelayMs(new DeferError(7000, 'waiting for candidate c1'), 0)).toBe(7000);
  });

  it('otherwise waits 1 s, doubling with each wait, at most a minute', () => {
    const later = retryLater('held by another delivery');
    expect([0, 1, 2, 3, 6, 7, 40].map((waits) => retryLaterDelayMs(later, waits))).toEqual([
      1000,
      2000,
      4000,
      8000,
      60_000,
      RETRY_LATER_CAP_MS,
      RETRY_LATER_CAP_MS,
    ]);
  });

  it("never waits past another holder's remaining lease, nor less than 250 ms", () => {
    const later = retryLaterOf(held(3000))!;
    expect([0, 1, 2, 5].map((waits) => retryLaterDelayMs(later, waits))).toEqual([1000, 2000, 3000, 3000]);
    expect(retryLaterDelayMs(retryLaterOf(held(0))!, 0)).toBe(250);
  });
});

describe('retryLaterOf', () => {
  it('reads a retry-later, a deferral and a retryable error of another library', () => {
    const later = retryLater('held');
    expect(retryLaterOf(later)).toBe(later);
    expect(retryLaterOf(new DeferError(1000, 'waiting'))).toBeInstanceOf(DeferError);
    const inProgress = held(1500);
    expect(retryLaterOf(inProgress)).toMatchObject({
      message: inProgress.message,
      notAfterMs: 1500,
      afterMs: undefined,
      cause: inProgress,
    });
    expect(retryLaterOf(held())).toBeInstanceOf(RetryLaterError);
  });

  it('leaves every other error to count as a failure', () => {
    for (const error of [
      new Error('smtp down'),
      new PermanentError('corrupt image'),
      Object.assign(new Error('conflict'), { retryable: false }),
      'held',
      undefined,
      null,
    ]) {
      expect(retryLaterOf(error)).toBeUndefined();
    }
  });
});
