import { describe, expect, it } from 'vitest';
import { phaseCosts, phases } from './costs.ts';
import type { BurstRun } from './predict.ts';
import {
  type BurstProbe,
  burstCounters,
  counterDelta,
  databaseDelta,
  parseProcStat,
  processCpu,
} from './probe.ts';

describe("a burst's probe", () => {
  it('reads CPU seconds and RSS of /proc/<pid>/stat, a command name with spaces and parentheses too', () => {
    // utime 250 + stime 50 ticks of 1/100 s; rss 51,200 pages of 4 KiB.
    const fields = ['S', ...Array.from({ length: 10 }, (_, i) => String(i)), '250', '50'];
    const rest = Array.from({ length: 8 }, () => '0');
    const text = `1234 (node (worker) x) ${[...fields, ...rest, '51200', '0'].join(' ')}\n`;
    expect(parseProcStat(text)).toEqual({ cpuSeconds: 3, rssMiB: 200 });
  });

  it("sums a process's counters over their other labels", () => {
    const text = [
      '# HELP hireflow_messages_total SQS messages',
      'hireflow_messages_total{queue="notifications-inbox",type="candidate.registered.v1",outcome="handled",service="notifications"} 90',
      'hireflow_messages_total{queue="notifications-inbox-bulk",type="candidate.registered.v1",outcome="handled",service="notifications"} 10',
      'hireflow_messages_total{queue="notifications-inbox",type="candidate.registered.v1",outcome="retry-later",service="notifications"} 3',
      'hireflow_job_duration_seconds_count{queue="email",name="welcome",outcome="completed",service="notifications"} 80',
      'hireflow_job_duration_seconds_sum{queue="email",name="welcome",outcome="completed",service="notifications"} 4.5',
      'hireflow_emails_total{outcome="sent",template="welcome",service="notifications"} 80',
      'process_cpu_seconds_total{service="notifications"} 12',
    ].join('\n');
    expect(burstCounters(text)).toEqual({
      'messages:handled': 100,
      'messages:retry-later': 3,
      'tasks:email:completed': 80,
      'emails:sent': 80,
    });
  });

  const probe: BurstProbe = {
    processes: {
      'notifications/1': {
        service: 'notifications',
        role: 'worker',
        samples: [
          [2, 1, 150],
          [10, 3, 180],
          [20, 4, 170],
        ],
      },
      // Started at 12 s: its CPU before its first sample is the phase's.
      'notifications/2': { service: 'notifications', role: 'worker', samples: [[12, 2.5, 160]] },
      launcher: {
        service: 'launcher',
        role: 'launcher',
        samples: [
          [2, 10, 300],
          [20, 19, 300],
        ],
      },
    },
    databases: {
      notifications: [
        [2, 100, 1, 0, 0],
        [10, 150, 3, 1, 4],
        [20, 300, 3, 1, 0],
      ],
    },
    counters: {
      notifications: [
        [2, { 'messages:handled': 5 }],
        [20, { 'messages:handled': 105 }],
      ],
    },
  };

  it('takes CPU, counters and database figures as their growth over a window', () => {
    const workers = (p: { role: string }) => p.role === 'worker';
    expect(processCpu(probe, workers, 10, 20)).toEqual({
      cpuSeconds: 1 + 2.5,
      peakRssMiB: 180,
      processes: 2,
    });
    expect(processCpu(probe, workers, 0, 10).cpuSeconds).toBe(2);
    expect(counterDelta(probe, 'notifications', 'messages:handled', 2, 20)).toBe(100);
    expect(databaseDelta(probe, 'notifications', 2, 20)).toEqual({
      commits: 200,
      rollbacks: 2,
      deadlocks: 1,
      maxLockWaits: 4,
    });
  });

  it("cuts a run's phases where publishing ends and where each pool drains, and costs each", () => {
    const sample = (t: number, backlog: number) => ({
      t,
      backlog,
      oldestAgeSeconds: 0,
      workers: 1,
      ready: 1,
    });
    const run = {
      events: 100,
      publishSeconds: 4,
      published: [
        [0, 0],
        [4, 100],
      ],
      pools: {
        notifications: [sample(2, 50), sample(10, 60), sample(18, 0)],
        matching: [sample(2, 40), sample(8, 0)],
      },
      probe,
    } as unknown as BurstRun;
    // Matching drained at 2 s (its last sample with work), notifications at 10 s; the probe ends at 20 s.
    expect(phases(run)).toEqual([
      [0, 4],
      [4, 10],
      [10, 20],
    ]);
    const [, , last] = phaseCosts(run);
    const notifications = last!.pools.find((p) => p.service === 'notifications')!;
    // By 10 s: 100 published, 60 waiting; by 20 s none.
    expect(notifications.handled).toBe(60);
    // Worker 1 from 3 to 4 CPU-s; worker 2, first seen at 12 s, all of its 2.5.
    expect(notifications.workerCpuSeconds).toBeCloseTo(1 + 2.5, 9);
    expect(notifications.commits).toBe(150);
    // The launcher from 14 (between its samples at 2 and 20 s) to 19.
    expect(last!.launcherCpuSeconds).toBeCloseTo(19 - 14, 9);
    expect(last!.pools.map((p) => p.service)).toEqual(['notifications']);
  });
});
