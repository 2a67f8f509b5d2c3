import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { decideWorkers, type ScalingSample, type ScalingState, scaleTime } from './decide.ts';

const policy: WorkerScalingPolicy = {
  minWorkers: 1,
  maxWorkers: 4,
  backlogPerWorker: 100,
  maxMessageAgeSeconds: 60,
  scaleOutCooldownSeconds: 60,
  scaleInCooldownSeconds: 300,
  quietPeriodBeforeScaleInSeconds: 600,
};

/** Runs the decision over a series of (second, backlog, age) samples; returns the worker count after each. */
function run(series: [number, number, number?][], start: ScalingState = { workers: 1 }, p = policy) {
  let state = start;
  const counts: number[] = [];
  const reasons: string[] = [];
  for (const [second, backlog, age = 0] of series) {
    const sample: ScalingSample = { at: second * 1000, backlog, oldestAgeSeconds: age };
    const decision = decideWorkers(p, sample, state);
    state = decision.state;
    counts.push(state.workers);
    if (decision.reason) reasons.push(`${second}: ${decision.reason}`);
  }
  return { counts, reasons, state };
}

/** Samples every `step` seconds from `from` to `to` with the same backlog and age. */
const steady = (from: number, to: number, backlog: number, age = 0, step = 10) =>
  Array.from(
    { length: Math.floor((to - from) / step) + 1 },
    (_, i) => [from + i * step, backlog, age] as [number, number, number],
  );

describe('decideWorkers', () => {
  it('grows to the backlog at once, capped at the maximum, then holds through the cool-down', () => {
    const { counts, reasons } = run([
      [0, 250],
      [10, 900],
      [60, 900],
    ]);
    expect(counts).toEqual([3, 3, 4]);
    expect(reasons).toEqual([
      '0: backlog 250 is 250 per worker > 100',
      '60: backlog 900 is 300 per worker > 100',
    ]);
  });

  it('adds one worker when the oldest work is too old, even with a short backlog', () => {
    expect(run([[0, 5, 61]]).counts).toEqual([2]);
    expect(run([[0, 5, 61]]).reasons).toEqual(['0: oldest waited 61 s > 60 s']);
    // …and holds at the maximum, whatever the signal.
    expect(run([[0, 10_000, 600]], { workers: 4 }).counts).toEqual([4]);
  });

  it('holds while the backlog sits between the target for n and for n − 1 workers', () => {
    // 150 waiting, 2 workers: 75 each is within the target, but one worker alone would have 150.
    const { counts } = run(steady(0, 3000, 150), { workers: 2 });
    expect(new Set(counts)).toEqual(new Set([2]));
  });

  it('shrinks one at a time after the quiet period, a cool-down apart, down to the minimum', () => {
    const { counts, reasons } = run(steady(0, 1800, 0), { workers: 3 });
    const at = (second: number) => counts[second / 10];
    expect(at(590)).toBe(3);
    expect(at(600)).toBe(2);
    expect(at(890)).toBe(2);
    expect(at(900)).toBe(1);
    expect(at(1800)).toBe(1);
    expect(reasons).toHaveLength(2);
  });

  it('restarts the quiet period when the backlog comes back', () => {
    const series = [...steady(0, 500, 0), [510, 180, 0] as [number, number, number], ...steady(520, 1100, 0)];
    const { counts } = run(series, { workers: 2 });
    // Quiet from 0, broken at 510 (180 would not fit one worker), quiet again from 520: out at 1120, not 600.
    expect(counts.every((c) => c === 2)).toBe(true);
    expect(run([...series, [1120, 0, 0]], { workers: 2 }).counts.at(-1)).toBe(1);
  });

  it('does not flap on a backlog that oscillates around the target', () => {
    // Every 10 s the backlog swings between 90 and 130 for one worker's target of 100.
    const series = Array.from({ length: 360 }, (_, i) => [i * 10, i % 2 ? 130 : 90] as [number, number]);
    const { counts } = run(series);
    const changes = counts.filter((c, i) => i > 0 && c !== counts[i - 1]).length;
    // One scale-out to 2 (130 > 100), then 2 holds: one fewer would not fit 130.
    expect(counts[0]).toBe(1);
    expect(counts[1]).toBe(2);
    expect(changes).toBe(1);
  });

  it('brings a count outside the bounds back within them', () => {
    expect(run([[0, 0]], { workers: 0 }).counts).toEqual([1]);
    expect(run([[0, 0]], { workers: 9 }).counts).toEqual([4]);
  });

  it('scales the durations for a demo, not the sizes', () => {
    const fast = scaleTime(policy, 0.05);
    expect(fast).toMatchObject({ minWorkers: 1, maxWorkers: 4, backlogPerWorker: 100 });
    expect(fast.quietPeriodBeforeScaleInSeconds).toBe(30);
    const { counts } = run(steady(0, 60, 0, 0, 5), { workers: 2 }, fast);
    expect(counts.indexOf(1) * 5).toBe(30);
  });
});
