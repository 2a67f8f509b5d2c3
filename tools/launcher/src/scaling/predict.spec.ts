import { readFileSync } from 'node:fs';
import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import {
  type BurstRun,
  busyAt,
  calibrate,
  compare,
  compareRun,
  cpuShare,
  measuredOutcome,
  perWorkerRate,
  predictBurst,
  predictRun,
  publishedBy,
  type RunSample,
  schedulePerEvent,
  simulateBurst,
} from './predict.ts';

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
const options = { intervalSeconds: 1, startSeconds: 5 };

describe('the capacity model on a burst', () => {
  it("takes a worker's rate from the measured ceilings, the slower of delivery and the pool's own work", () => {
    // 190 emails/s per notifications worker, below the consumer's 800 messages/s.
    expect(perWorkerRate('notifications', load)).toBe(190);
    // A registration with no open postings: embed 0.35 ms + commit 2 ms → 425/s.
    expect(perWorkerRate('matching', load)).toBeCloseTo(1000 / 2.35, 6);
  });

  it('drains at the arrival rate when one worker keeps up', () => {
    // 200 events/s arrive for 10 s; 500/s are handled: the last is done in the 10th second.
    const p = predictBurst(load, policy, 500, options);
    expect(p.peakWorkers).toBe(1);
    expect(p.drainSeconds).toBe(10);
  });

  it('adds workers by the policy when the backlog grows, each after its start time', () => {
    // 200/s arrive, one worker does 50/s: 150 more wait each second. At 6 s the
    // backlog (1,050) passes 1,000 per worker: a second one. First in, first
    // out, the worker has cleared the events of seconds 0–1 by 9 s, those of
    // second 2 by 12 s: the oldest waiting is 7 s, then 9 s old, past 6 s, and
    // the age rule adds one at 9 s and 12 s (the 3 s cool-down between).
    const p = predictBurst(load, policy, 50, options);
    expect(p.peakWorkers).toBe(4);
    // Each starts 5 s after it was added: done by the end of second t (t ≥ 16) is
    // 50(t+1) + 50(t−10) + 50(t−13) + 50(t−16) = 200t − 1900: 1,900 by the end of
    // second 19, the last 100 in second 20 (t = 20), which ends at 21 s.
    expect(p.drainSeconds).toBe(21);
  });

  it('shares the cores among the busy processes: a pool that finishes speeds up the others', () => {
    // Three pools of one worker, 100 events each at once, on 2 cores: 3 busy
    // processes get 2/3 of a core each. a and b cost 30 CPU-ms an event
    // (22.2/s), c 15 ms (44.4/s): c is done in its third second (t = 2); then
    // 2 busy processes get a core each, and a and b do their last 33.3 in t = 3.
    expect(cpuShare(2, 3)).toBeCloseTo(2 / 3, 9);
    expect(cpuShare(2, 1)).toBe(1);
    const one = { ...policy, maxWorkers: 1 };
    const rate = (cpuSeconds: number) => (busy: number) => cpuShare(2, busy) / cpuSeconds;
    const p = simulateBurst(
      100,
      (t) => (t >= 1 ? 100 : 0),
      [
        { service: 'a', policy: one, perWorkerPerSecond: rate(0.03) },
        { service: 'b', policy: one, perWorkerPerSecond: rate(0.03) },
        { service: 'c', policy: one, perWorkerPerSecond: rate(0.015) },
      ],
      options,
    );
    expect(p.c!.drainSeconds).toBe(3);
    expect(p.a!.drainSeconds).toBe(4);
    expect(p.a!.perWorkerPerSecond).toBeCloseTo(1 / 0.03, 6);
  });

  it('counts a worker starting as busy: it takes its share while it starts', () => {
    // One pool, 10 CPU-ms an event: alone its worker does 100/s. A backlog of
    // 1,000 (> 300 per worker) asks for a second one at the end of second 0,
    // which starts until 5 s. On 2 cores the two busy processes get a core
    // each: 100 + 4 × 100 = 500 by 5 s, then two workers at 100/s: 200 in each
    // of t = 5, 6 and the last 100 in t = 7, which ends at 8 s.
    const onCores = (cores: number) =>
      simulateBurst(
        1000,
        () => 1000,
        [
          {
            service: 'matching',
            policy: { ...policy, backlogPerWorker: 300, maxWorkers: 2 },
            perWorkerPerSecond: (busy) => cpuShare(cores, busy) / 0.01,
          },
        ],
        options,
      ).matching;
    expect(onCores(2)).toEqual({ perWorkerPerSecond: 100, peakWorkers: 2, drainSeconds: 8 });
    // On one core the starting worker halves the first one's pace: 100 + 4 × 50 = 300 by 5 s,
    // then 2 × 50/s: the last 700 in t = 5…11, which ends at 12 s.
    expect(onCores(1)!.drainSeconds).toBe(12);
  });

  it('compares within a tolerance either way', () => {
    expect(compare(10, 12.9)).toEqual({ ratio: 1.29, within: true });
    expect(compare(10, 7).within).toBe(true);
    expect(compare(10, 6.9).within).toBe(false);
    expect(compare(0, 0)).toEqual({ ratio: 1, within: true });
  });
});

/**
 * A recorded run, built by hand: 1,000 events published in 2 s; matching's
 * one worker does 10/s and notifications' 20/s while the fleet is at its
 * minimum; at 1 s each asks for a second worker, which takes work at 20 s.
 */
function recordedRun(): BurstRun {
  const matching: RunSample[] = [];
  const notifications: RunSample[] = [];
  for (let t = 0; t <= 30; t++) {
    const grown = t >= 20;
    // A pool whose one worker does `rate` until 20 s, and `after` more a second from then.
    const sample = (offset: number, rate: number, after: number): RunSample => {
      const left = Math.max(0, 1000 - rate * Math.max(0, t - 2));
      return {
        t: t + offset,
        backlog: t === 0 ? 0 : grown ? Math.max(0, left - after * (t - 19)) : left,
        oldestAgeSeconds: t,
        workers: t >= 1 ? 2 : 1,
        ready: grown ? 2 : 1,
      };
    };
    matching.push(sample(0.1, 10, 40));
    notifications.push(sample(0.2, 20, 60));
  }
  // One sample where the gauge read nothing.
  matching[10] = { ...matching[10]!, backlog: 0 };
  const bounds = { ...policy, maxWorkers: 2, backlogPerWorker: 300 };
  return {
    at: '2026-12-02T00:00:00.000Z',
    events: 1000,
    timeScale: 0.05,
    publishSeconds: 2,
    published: [
      [0, 0],
      [1, 500],
      [2, 1000],
    ],
    pools: { matching, notifications },
    policies: { matching: bounds, notifications: bounds },
    cores: 2,
    loadAverage: [30, 32],
  };
}

describe('calibrating the model in the run', () => {
  const run = recordedRun();

  it('reads the run: published by a time, busy processes, peak workers and drain', () => {
    expect(publishedBy(run, 0.5)).toBe(250);
    expect(publishedBy(run, 5)).toBe(1000);
    // At 11 s: one ready worker busy in each pool and one starting in each.
    expect(busyAt(run, 11.5)).toBe(4);
    // At 10 s matching's gauge read nothing: its ready worker is not counted busy.
    expect(busyAt(run, 10.15)).toBe(3);
    expect(measuredOutcome(run.pools.matching!)).toEqual({ peakWorkers: 2, drainSeconds: 30.1 });
  });

  it("takes each pool's pace before the fleet grew, and the start time of a worker", () => {
    const c = calibrate(run);
    expect(c.fleetGrewAt).toBeCloseTo(20.1, 9);
    // 4 busy through the window (two workers, two starting: half a core each), 3 at the gauge's zero.
    expect(c.pools.matching!.workers).toBe(1);
    expect(c.pools.matching!.busy).toBeCloseTo((16 * 4 + 3) / 17, 9);
    expect(c.pools.matching!.from).toBeCloseTo(3.1, 9);
    // The lone zero at 10 s is skipped: the window runs to the last sample before the fleet grew.
    expect(c.pools.matching!.to).toBeCloseTo(19.1, 9);
    expect(c.pools.matching!.perWorkerPerSecond).toBeCloseTo(10, 9);
    expect(c.pools.matching!.cpuSecondsPerEvent).toBeCloseTo(cpuShare(2, c.pools.matching!.busy) / 10, 9);
    expect(c.pools.notifications!.perWorkerPerSecond).toBeCloseTo(20, 9);
    // Asked for at 1 s, ready at 20 s.
    expect(c.startSeconds).toBeCloseTo(19, 9);
  });

  it("divides a pool's recorded CPU and run-queue wait by the events", () => {
    expect(schedulePerEvent(run, 'matching')).toBeUndefined();
    const recorded = {
      ...run,
      cpu: {
        matching: [
          [2, 1, 4],
          [30, 12, 50],
        ] as [number, number, number][],
      },
    };
    // 12 s on a core and 50 s waiting for one over 1,000 events.
    expect(schedulePerEvent(recorded, 'matching')).toEqual({ cpuMs: 12, waitMs: 50 });
    expect(compareRun(recorded, { defaultStartSeconds: 10 })).toContainEqual(
      'an event cost the workers (schedstat, the whole run): matching 12.0 ms on a core, 50.0 ms waiting for one',
    );
  });

  it('predicts the run with what it calibrated, and prints the comparison', () => {
    const c = calibrate(run);
    const [matching, notifications] = predictRun(run, { defaultStartSeconds: 10 });
    expect(matching!.service).toBe('matching');
    expect(matching!.calibration).toEqual(c.pools.matching);
    expect(matching!.predicted.peakWorkers).toBe(2);
    // notifications drains first; matching ends alone, its two workers a core each.
    expect(notifications!.predicted.drainSeconds).toBeLessThan(matching!.predicted.drainSeconds);
    expect(matching!.predicted.perWorkerPerSecond).toBeCloseTo(1 / c.pools.matching!.cpuSecondsPerEvent, 6);
    expect(matching!.measured).toEqual({ peakWorkers: 2, drainSeconds: 30.1 });
    expect(matching!.drain).toEqual(compare(matching!.predicted.drainSeconds, 30.1));
    // At the benched ceiling (426/s) the minimum keeps up: drained a second after the 2 s publish.
    expect(matching!.benched).toMatchObject({ peakWorkers: 1, drainSeconds: 3 });
    const lines = compareRun(run, { defaultStartSeconds: 10 });
    expect(lines[0]).toMatch(/a worker took 19\.0 s to start; the fleet first grew at 20\.1 s/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}matching +3\.1–19\.1 s: 1 worker\(s\) at 10\.0 events\/s each/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^matching +2 \/ 2 \(1\.00\) +\d+ s \/ 30 s/));
  });
});

describe('the recorded runs of docs/capacity.md', () => {
  const replay = (name: string) => {
    const run = JSON.parse(
      readFileSync(new URL(`../../../../docs/data/burst-2026-12-02-${name}.json`, import.meta.url), 'utf8'),
    ) as BurstRun;
    return Object.fromEntries(
      predictRun(run, { defaultStartSeconds: 10 }).map((r) => [
        r.service,
        {
          workers: `${r.predicted.peakWorkers}/${r.measured.peakWorkers}`,
          drain: r.drain.ratio,
          within: r.drain.within && r.workers.within,
        },
      ]),
    );
  };

  it('in runs 1 (load 23–40) and 4 (load 43–58) every pool is within 30 %', () => {
    const run = replay('0049');
    expect(run.matching).toEqual({ workers: '3/3', drain: expect.closeTo(0.84, 2), within: true });
    expect(run.notifications).toEqual({ workers: '3/3', drain: expect.closeTo(0.99, 2), within: true });
    expect(run.jobs!.within && run.media!.within).toBe(true);
    const four = replay('0136');
    expect(four.notifications).toEqual({ workers: '2/2', drain: expect.closeTo(0.78, 2), within: true });
    expect([four.matching!.within, four.jobs!.within, four.media!.within]).toEqual([true, true, true]);
  });

  it('in runs 2 and 3 (load 42–55) notifications is not, the others are', () => {
    for (const [name, ratio] of [
      ['0056', 0.51],
      ['0106', 0.48],
    ] as const) {
      const run = replay(name);
      expect(run.notifications).toEqual({ workers: '3/3', drain: expect.closeTo(ratio, 2), within: false });
      expect([run.matching!.within, run.jobs!.within, run.media!.within]).toEqual([true, true, true]);
    }
  });
});
