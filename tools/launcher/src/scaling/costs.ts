// What each pool spent per event in each phase of a recorded burst, from its
// probe (scaling/probe.ts): the phases are cut where publishing ends and where
// each pool drains, so a pool's cost while another works is beside its cost
// once that one is done (docs/capacity.md, "Prediction against a run").
import { type BurstRun, measuredOutcome, publishedBy, type RunSample } from './predict.ts';
import { counterDelta, databaseDelta, processCpu } from './probe.ts';

export interface PoolPhaseCost {
  service: string;
  /** Events the pool finished in the phase (published − waiting, between its samples). */
  handled: number;
  /** Its worker processes' CPU seconds in the phase. */
  workerCpuSeconds: number;
  /** Its database's backends' CPU seconds. */
  postgresCpuSeconds: number;
  commits: number;
  rollbacks: number;
  deadlocks: number;
  maxLockWaits: number;
  /** Counters that grew in the phase (scaling/probe.ts, burstCounters). */
  counters: Record<string, number>;
}

export interface PhaseCost {
  from: number;
  to: number;
  /** The launcher's process (SNS/SQS emulator, mail catcher, autoscaler): CPU seconds. */
  launcherCpuSeconds: number;
  /** The Redis server (shared with other sessions): CPU seconds. */
  redisCpuSeconds: number;
  pools: PoolPhaseCost[];
}

const sampleAt = (points: readonly RunSample[], t: number): RunSample | undefined =>
  points.findLast((p) => p.t <= t);

/** Events a pool had finished by t: published by then less what waited. */
export function handledBy(run: BurstRun, service: string, t: number): number {
  const s = sampleAt(run.pools[service] ?? [], t);
  return s ? Math.max(0, publishedBy(run, s.t) - s.backlog) : 0;
}

/** The phases of a run: cut where publishing ends and where each pool drains. */
export function phases(run: BurstRun): [number, number][] {
  const end = Math.max(
    0,
    ...Object.values(run.probe?.processes ?? {}).flatMap((p) => p.samples.map(([t]) => t)),
  );
  const cuts = [
    0,
    run.publishSeconds,
    ...Object.values(run.pools).map((points) => measuredOutcome(points).drainSeconds),
    end,
  ]
    .filter((t) => t <= end)
    .sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const t of cuts) {
    const last = out[out.length - 1];
    const from = last ? last[1] : 0;
    // Phases under 4 s (two probe samples) join the next.
    if (t - from >= 4) out.push([from, t]);
  }
  return out;
}

/** Each phase's costs per pool (a pool with nothing handled and no CPU in it is left out). */
export function phaseCosts(run: BurstRun): PhaseCost[] {
  const probe = run.probe;
  if (!probe) return [];
  return phases(run).map(([from, to]) => {
    const pools: PoolPhaseCost[] = [];
    for (const service of Object.keys(run.pools)) {
      const handled = handledBy(run, service, to) - handledBy(run, service, from);
      const workers = processCpu(probe, (p) => p.service === service && p.role === 'worker', from, to);
      if (handled <= 0 && workers.cpuSeconds <= 0) continue;
      const postgres = processCpu(probe, (p) => p.service === service && p.role === 'postgres', from, to);
      const keys = new Set(Object.values(probe.counters[service] ?? []).flatMap(([, c]) => Object.keys(c)));
      const counters: Record<string, number> = {};
      for (const key of [...keys].sort()) {
        const delta = counterDelta(probe, service, key, from, to);
        if (delta !== 0) counters[key] = delta;
      }
      pools.push({
        service,
        handled,
        workerCpuSeconds: workers.cpuSeconds,
        postgresCpuSeconds: postgres.cpuSeconds,
        ...databaseDelta(probe, service, from, to),
        counters,
      });
    }
    return {
      from,
      to,
      launcherCpuSeconds: processCpu(probe, (p) => p.role === 'launcher', from, to).cpuSeconds,
      redisCpuSeconds: processCpu(probe, (p) => p.service === 'redis', from, to).cpuSeconds,
      pools,
    };
  });
}

const per = (value: number, events: number) => (events > 0 ? ((value * 1000) / events).toFixed(1) : '—');

/** `phaseCosts` as the lines `pnpm burst` prints. */
export function phaseReport(run: BurstRun): string[] {
  const lines: string[] = [];
  for (const phase of phaseCosts(run)) {
    const seconds = phase.to - phase.from;
    lines.push(
      `${phase.from.toFixed(0)}–${phase.to.toFixed(0)} s: launcher (emulator, mail catcher) ${(phase.launcherCpuSeconds / seconds).toFixed(2)} of a core, Redis ${(phase.redisCpuSeconds / seconds).toFixed(2)}`,
    );
    for (const p of phase.pools) {
      const counters = Object.entries(p.counters)
        .map(([key, value]) => `${key} ${value}`)
        .join(', ');
      lines.push(
        `  ${p.service.padEnd(14)} ${p.handled.toFixed(0).padStart(5)} done (${(p.handled / seconds).toFixed(1)}/s); ` +
          `workers ${per(p.workerCpuSeconds, p.handled)} CPU-ms an event (${(p.workerCpuSeconds / seconds).toFixed(2)} cores), ` +
          `Postgres ${per(p.postgresCpuSeconds, p.handled)} ms; ${p.commits} commits, ${p.rollbacks} rollbacks, ` +
          `${p.deadlocks} deadlocks, ≤ ${p.maxLockWaits} waiting on a lock${counters ? `; ${counters}` : ''}`,
      );
    }
  }
  return lines;
}

/** Per service and role (`jobs api`, `notifications worker`, …): the first RSS seen of a process and the largest, MiB. */
export function residentMemory(
  run: BurstRun,
): Record<string, { firstMiB: number; peakMiB: number; processes: number }> {
  const out: Record<string, { firstMiB: number; peakMiB: number; processes: number }> = {};
  for (const p of Object.values(run.probe?.processes ?? {})) {
    if (p.samples.length === 0 || !['api', 'worker', 'all', 'launcher'].includes(p.role)) continue;
    const key = p.role === 'launcher' ? 'launcher' : `${p.service} ${p.role}`;
    const first = p.samples[0]![2];
    const peak = Math.max(...p.samples.map(([, , rss]) => rss));
    const row = out[key];
    out[key] = row
      ? {
          firstMiB: Math.max(row.firstMiB, first),
          peakMiB: Math.max(row.peakMiB, peak),
          processes: row.processes + 1,
        }
      : { firstMiB: first, peakMiB: peak, processes: 1 };
  }
  return out;
}
