import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { compare, perWorkerRate, predictBurst } from './predict.ts';

const policy: WorkerScalingPolicy = {
  minWorkers: 1,
  maxWorkers: 4,
  backlogPerWorker: 1000,
  maxMessageAgeSeconds: 6,
  scaleOutCooldownSeconds: 3,
  scaleInCooldownSeconds: 15,
  quietPeriodBeforeScaleInSeconds: 30,
};
const load = { events: 2000, publishSeconds: 10, openPostingsPerTenant: 0 };

describe('the capacity model on a burst', () => {
  it("takes a worker's rate from the measured ceilings, the slower of delivery and the pool's own work", () => {
    // 190 emails/s per notifications worker, below the consumer's 800 messages/s.
    expect(perWorkerRate('notifications', load)).toBe(190);
    // A registration with no open postings: embed 0.35 ms + commit 2 ms → 425/s.
    expect(perWorkerRate('matching', load)).toBeCloseTo(1000 / 2.35, 6);
  });

  it('drains at the arrival rate when one worker keeps up', () => {
    // 200 events/s arrive for 10 s; 500/s are handled: the last is done in the 10th second.
    const p = predictBurst(load, policy, 500, { intervalSeconds: 1, startSeconds: 5 });
    expect(p.peakWorkers).toBe(1);
    expect(p.drainSeconds).toBe(10);
  });

  it('adds workers by the policy when the backlog grows, each after its start time', () => {
    // 200/s arrive, one worker does 50/s: 150 more wait each second. At 6 s the
    // backlog (1,050) passes 1,000 per worker: a second one; then the age rule
    // (oldest past 6 s) adds one at 9 s and 12 s (the 3 s cool-down between).
    const p = predictBurst(load, policy, 50, { intervalSeconds: 1, startSeconds: 5 });
    expect(p.peakWorkers).toBe(4);
    // Each starts 5 s after it was added: done by the end of second t (t ≥ 16) is
    // 50(t+1) + 50(t−10) + 50(t−13) + 50(t−16) = 200t − 1900: 1,900 by the end of
    // second 19, the last 100 in second 20 (t = 20), which ends at 21 s.
    expect(p.drainSeconds).toBe(21);
  });

  it('compares within a tolerance either way', () => {
    expect(compare(10, 12.9)).toEqual({ ratio: 1.29, within: true });
    expect(compare(10, 7).within).toBe(true);
    expect(compare(10, 6.9).within).toBe(false);
    expect(compare(0, 0)).toEqual({ ratio: 1, within: true });
  });
});
