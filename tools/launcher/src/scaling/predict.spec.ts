import { readFileSync } from 'node:fs';
import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import {
  type BurstRun,
  busyAt,
  calibrate,
  compare,
  compareRun,
  contention,
  cpuShare,
  measuredOutcome,
  perWorkerRate,
  predictBurst,
  predictRun,
  publishedBy,
  type RunSample,
  SEND_TO_INTAKE_COST,
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

  it("gives a two-stage pool's workers to the inbox first, what is left of their second to sending", () => {
    // One worker takes 100 events/s through the inbox or sends 50 emails/s. 150 arrive
    // at once: in second 0 the inbox takes 100 (the whole second); in second 1 the last
    // 50 (half of it), and the other half sends 25; then 50 a second: 100 in t = 2, 3 and
    // the last 25 in t = 4, which ends at 5 s. The autoscaler sees both stages' work.
    const one = { ...policy, maxWorkers: 1 };
    const p = simulateBurst(
      150,
      () => 150,
      [{ service: 'n', policy: one, perWorkerPerSecond: () => 100, sendPerWorkerPerSecond: () => 50 }],
      options,
    );
    expect(p.n).toEqual({ perWorkerPerSecond: 100, peakWorkers: 1, drainSeconds: 5 });
    // The same work as one stage at 1 ÷ (1/100 + 1/50) = 33.3/s: the last of 150 in t = 4 as well.
    const single = simulateBurst(
      150,
      () => 150,
      [{ service: 'n', policy: one, perWorkerPerSecond: () => 100 / 3 }],
      options,
    );
    expect(single.n!.drainSeconds).toBe(5);
    // Scaled on both stages' work: at 0 s 50 wait in the inbox and 100 as tasks, 150 > 100 per worker.
    const scaled = simulateBurst(
      150,
      () => 150,
      [
        {
          service: 'n',
          policy: { ...policy, backlogPerWorker: 100, maxWorkers: 2 },
          perWorkerPerSecond: () => 100,
          sendPerWorkerPerSecond: () => 50,
        },
      ],
      { intervalSeconds: 1, startSeconds: 100 },
    );
    expect(scaled.n!.peakWorkers).toBe(2);
  });

  it('shares the cores with processes outside the stack when there are some', () => {
    // 40 runnable processes on 2 cores: a twentieth of a core each.
    expect(cpuShare(2, 2, 38)).toBeCloseTo(0.05, 9);
    // With 48 others the stack's share grows with its own count: 3 processes get 3 × 2/51, not 2 cores ÷ 3.
    expect(3 * cpuShare(2, 3, 48)).toBeCloseTo(6 / 51, 9);
    expect(cpuShare(2, 1, 0)).toBe(1);
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

describe('what the calibration reads of a run', () => {
  const bounds = { ...policy, maxWorkers: 2, backlogPerWorker: 300 };
  /** 1,000 events published evenly over 100 s (10/s); one pool of one worker sampled every second up to 20 s. */
  const run = (backlog: (t: number) => number, extra: Partial<BurstRun> = {}): BurstRun => ({
    at: '2026-12-02T00:00:00.000Z',
    events: 1000,
    timeScale: 0.05,
    publishSeconds: 100,
    published: [
      [0, 0],
      [100, 1000],
    ],
    pools: {
      matching: Array.from({ length: 20 }, (_, i) => ({
        t: i + 1,
        backlog: backlog(i + 1),
        oldestAgeSeconds: 1,
        workers: 1,
        ready: 1,
      })),
    },
    policies: { matching: bounds },
    cores: 2,
    loadAverage: [60],
    ...extra,
  });

  it('takes readings of nothing for the gauge when the next shows more waiting than was published since', () => {
    // The worker does 5 of the 10 arriving a second: 5t wait. Readings of 0 at 8–10 s, then 55 at 11 s,
    // when only 30 arrived since 8 s: the gauge's zeros. The window runs on to 20 s at 5/s.
    const gauge = calibrate(run((t) => (t >= 8 && t <= 10 ? 0 : 5 * t))).pools.matching!;
    expect([gauge.from, gauge.to]).toEqual([1, 20]);
    expect(gauge.perWorkerPerSecond).toBeCloseTo(5, 9);
    // A pool that did drain: 0 at 8 and 9 s, then 10 waiting at 10 s, fewer than the 20 published since.
    const drained = calibrate(run((t) => (t <= 7 ? 5 * t : t === 10 ? 10 : t > 10 ? 10 + 5 * (t - 10) : 0)))
      .pools.matching!;
    expect([drained.from, drained.to]).toEqual([1, 7]);
  });

  it("counts the processes outside the stack from the workers' schedstat before the fleet grew", () => {
    const busy = run((t) => 5 * t);
    expect(contention(busy, 20)).toBe(0);
    // 2 CPU-seconds run, 38 waiting: a runnable thread ran a twentieth of the time, 40 competed
    // for the 2 cores; the stack had one busy worker: 39 others. Half-way, the same.
    const cpu = {
      matching: [[0, 0, 0] as [number, number, number], [20, 2, 38] as [number, number, number]],
    };
    expect(contention({ ...busy, cpu }, 20)).toBeCloseTo(39, 9);
    expect(contention({ ...busy, cpu }, 10)).toBeCloseTo(39, 9);
    const c = calibrate({ ...busy, cpu });
    expect(c.others).toBeCloseTo(39, 9);
    // Its share then was 2 ÷ 40: 5 events/s cost 10 CPU-ms each.
    expect(c.pools.matching!.cpuSecondsPerEvent).toBeCloseTo(0.05 / 5, 9);
  });

  it('calibrates a two-stage pool on its inbox, its send at the measured ratio of the stages', () => {
    // Notifications' inbox takes 5 a second, nothing is sent: the whole backlog stays 5t + (published − 5t).
    const sampled = run((t) => 10 * t);
    const notifications = sampled.pools.matching!.map((p) => ({
      ...p,
      inbox: 5 * p.t,
      jobs: 5 * p.t,
    }));
    const c = calibrate({
      ...sampled,
      pools: { notifications },
      policies: { notifications: bounds },
    }).pools.notifications!;
    expect(c.stage).toBe('inbox');
    expect(c.perWorkerPerSecond).toBeCloseTo(5, 9);
    expect(c.cpuSecondsPerEvent).toBeCloseTo(1 / 5, 9);
    // 630 intakes or 270 sends a second (measured.ts): a send costs 2.33 intakes.
    expect(SEND_TO_INTAKE_COST).toBeCloseTo(630 / 270, 9);
    expect(c.sendCpuSecondsPerEvent).toBeCloseTo((1 / 5) * (630 / 270), 9);
  });

  it('measures a pool that kept pace as drained when publishing ended, not at its last reading of work', () => {
    const points = run((t) => (t === 5 ? 3 : 0)).pools.matching!;
    expect(measuredOutcome(points).drainSeconds).toBe(5);
    expect(measuredOutcome(points, 100).drainSeconds).toBe(100);
    expect(measuredOutcome(run(() => 0).pools.matching!, 100).drainSeconds).toBe(0);
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

  it('in run 5 (load 63–78) matching, jobs and notifications are, media only on drain', () => {
    const run = replay('0535');
    expect(run.matching).toEqual({ workers: '3/3', drain: expect.closeTo(0.99, 2), within: true });
    expect(run.jobs).toEqual({ workers: '4/4', drain: expect.closeTo(0.92, 2), within: true });
    expect(run.notifications).toEqual({ workers: '3/3', drain: expect.closeTo(1.0, 2), within: true });
    // Media kept pace (drained as publishing ended) but scaled out twice on the age of redeliveries.
    expect(run.media).toEqual({ workers: '2/4', drain: expect.closeTo(1.0, 2), within: false });
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
