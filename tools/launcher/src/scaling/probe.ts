// Where a burst's CPU goes (`pnpm burst`; docs/capacity.md, "Prediction
// against a run"): every process of the instance (the launcher, which runs
// the SNS/SQS emulator and the mail catcher in its one thread, each API and
// worker process, the Postgres backends of the instance's databases) with
// its CPU seconds and RSS from /proc, each service database's commits,
// rollbacks, deadlocks and backends waiting on a lock, and per service the
// counters its processes' /metrics keep (messages and BullMQ tasks by
// outcome, emails). Sampled every few seconds into the run's record; the
// pure functions here turn the series into per-event figures per window.
import { readFile } from 'node:fs/promises';
import { parseMetrics } from '@hireflow/ops';

/** Linux: CPU seconds (user + system, every thread, live and exited) and RSS of /proc/<pid>/stat. */
export function parseProcStat(text: string): { cpuSeconds: number; rssMiB: number } {
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime 15, rss (pages) 24.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { cpuSeconds: ticks / CLOCK_TICKS, rssMiB: (Number(fields[21]) * PAGE_BYTES) / 2 ** 20 };
}

/** sysconf(_SC_CLK_TCK) and the page size on Linux (x86-64, arm64 with 4 KiB pages). */
const CLOCK_TICKS = 100;
const PAGE_BYTES = 4096;

export async function readProcStat(pid: number): Promise<{ cpuSeconds: number; rssMiB: number } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return text ? parseProcStat(text) : undefined;
}

/**
 * The counters a burst reads of a process's /metrics, summed over their
 * other labels: `messages:<outcome>` (SQS messages handled, retry-later,
 * deferred …), `tasks:<queue>:<outcome>` (BullMQ tasks completed, failed …),
 * `idempotency:<outcome>`, `emails:<outcome>`.
 */
export function burstCounters(metricsText: string): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (key: string, value: number) => {
    out[key] = (out[key] ?? 0) + value;
  };
  for (const s of parseMetrics(metricsText)) {
    if (s.name === 'hireflow_messages_total') add(`messages:${s.labels.outcome}`, s.value);
    else if (s.name === 'hireflow_job_duration_seconds_count')
      add(`tasks:${s.labels.queue}:${s.labels.outcome}`, s.value);
    else if (s.name === 'hireflow_idempotency_total') add(`idempotency:${s.labels.outcome}`, s.value);
    else if (s.name === 'hireflow_emails_total') add(`emails:${s.labels.outcome}`, s.value);
  }
  return out;
}

/** One process of the instance over the run: every sample [t, CPU seconds so far, RSS MiB]. */
export interface ProbedProcess {
  service: string;
  /** `api`, `worker`, `all`, `launcher` (emulator, mail catcher, autoscaler), `postgres` (a backend). */
  role: string;
  samples: [t: number, cpuSeconds: number, rssMiB: number][];
}

/** A service database over the run, every sample: [t, commits, rollbacks, deadlocks, backends waiting on a lock]. */
export type DatabaseSeries = [
  t: number,
  commits: number,
  rollbacks: number,
  deadlocks: number,
  lockWaits: number,
][];

/** What `pnpm burst` records of where its CPU went (BurstRun.probe). */
export interface BurstProbe {
  /** By process name (`notifications/2`, `launcher`, `postgres:notifications:1234`). */
  processes: Record<string, ProbedProcess>;
  databases: Record<string, DatabaseSeries>;
  /** Per service, every sample: [t, the counters summed over its processes, each at its last reading]. */
  counters: Record<string, [number, Record<string, number>][]>;
}

/**
 * The value of a cumulative series at t: linear between the samples around
 * it, the first sample's before it, the last's after.
 */
export function seriesAt<T extends readonly number[]>(
  series: readonly T[],
  t: number,
  index: number,
): number {
  if (series.length === 0) return 0;
  const next = series.findIndex((s) => s[0]! >= t);
  if (next === 0) return series[0]![index]!;
  if (next < 0) return series[series.length - 1]![index]!;
  const a = series[next - 1]!;
  const b = series[next]!;
  return a[index]! + ((b[index]! - a[index]!) * (t - a[0]!)) / (b[0]! - a[0]!);
}

/**
 * What a service's processes of `role` spent over [from, to] s: CPU seconds
 * (processes that were gone by `to` keep their last reading) and the peak
 * RSS of one of them.
 */
export function processCpu(
  probe: BurstProbe,
  filter: (p: ProbedProcess) => boolean,
  from: number,
  to: number,
): { cpuSeconds: number; peakRssMiB: number; processes: number } {
  let cpuSeconds = 0;
  let peakRssMiB = 0;
  let processes = 0;
  const all = Object.values(probe.processes).filter((p) => p.samples.length > 0);
  const probeStart = Math.min(...all.map((p) => p.samples[0]![0]));
  for (const p of all) {
    if (!filter(p)) continue;
    const first = p.samples[0]![0];
    if (first > to) continue;
    const inside = p.samples.filter(([t]) => t >= from && t <= to);
    // A process first seen after the probe's first sample started then: its CPU before that counts from 0.
    const start = first > probeStart && first >= from ? 0 : seriesAt(p.samples, from, 1);
    cpuSeconds += seriesAt(p.samples, to, 1) - start;
    peakRssMiB = Math.max(peakRssMiB, ...inside.map(([, , rss]) => rss));
    processes += 1;
  }
  return { cpuSeconds, peakRssMiB, processes };
}

/** A counter's growth over [from, to] s for a service. */
export function counterDelta(
  probe: BurstProbe,
  service: string,
  key: string,
  from: number,
  to: number,
): number {
  const series = (probe.counters[service] ?? []).map(([t, counters]) => [t, counters[key] ?? 0] as const);
  return seriesAt(series, to, 1) - seriesAt(series, from, 1);
}

/** A database's commits, rollbacks and deadlocks over [from, to] s, and the most backends seen waiting on a lock. */
export function databaseDelta(
  probe: BurstProbe,
  service: string,
  from: number,
  to: number,
): { commits: number; rollbacks: number; deadlocks: number; maxLockWaits: number } {
  const series = probe.databases[service] ?? [];
  const inside = series.filter(([t]) => t >= from && t <= to);
  return {
    commits: seriesAt(series, to, 1) - seriesAt(series, from, 1),
    rollbacks: seriesAt(series, to, 2) - seriesAt(series, from, 2),
    deadlocks: seriesAt(series, to, 3) - seriesAt(series, from, 3),
    maxLockWaits: Math.max(0, ...inside.map((s) => s[4])),
  };
}
