import { describe, expect, it } from 'vitest';
import { circuitOpenUntil, nextAttemptAt, outcomeOf } from './retry.ts';

const schedule = { baseMs: 10_000, capMs: 6 * 3600_000, windowMs: 3 * 24 * 3600_000 };
const created = new Date('2026-12-01T00:00:00Z');

describe('nextAttemptAt', () => {
  it('brings the first two retries within a minute, even at the top of their jitter', () => {
    const max = () => 0.999_999;
    const first = nextAttemptAt(schedule, 1, created, created, max)!;
    const second = nextAttemptAt(schedule, 2, created, first, max)!;
    expect(second.getTime() - created.getTime()).toBeLessThan(60_000);
  });

  it('never waits past the cap, nor past the window; after the window there is no retry', () => {
    const now = new Date(created.getTime() + 3600_000);
    const at = nextAttemptAt(schedule, 30, created, now, () => 0.999_999)!;
    expect(at.getTime() - now.getTime()).toBeLessThanOrEqual(schedule.capMs);
    const late = new Date(created.getTime() + schedule.windowMs - 1000);
    expect(nextAttemptAt(schedule, 30, created, late, () => 0.999_999)!.getTime()).toBe(
      created.getTime() + schedule.windowMs,
    );
    expect(
      nextAttemptAt(schedule, 31, created, new Date(created.getTime() + schedule.windowMs)),
    ).toBeUndefined();
  });
});

describe('circuitOpenUntil', () => {
  it('stays closed below five failures, then opens 15 s doubling to 10 min', () => {
    const now = new Date(0);
    expect(circuitOpenUntil(4, now)).toBeNull();
    expect(circuitOpenUntil(5, now)!.getTime()).toBe(15_000);
    expect(circuitOpenUntil(6, now)!.getTime()).toBe(30_000);
    expect(circuitOpenUntil(40, now)!.getTime()).toBe(600_000);
  });
});

describe('outcomeOf', () => {
  it('2xx delivered, 410 gone, else failed', () => {
    expect(outcomeOf(204)).toBe('delivered');
    expect(outcomeOf(410)).toBe('gone');
    expect(outcomeOf(301)).toBe('failed');
    expect(outcomeOf(500)).toBe('failed');
  });
});
