// What a process costs before it does anything (issue 31): idle resident
// memory and the time from spawn to ready, for a bare Node process, the
// baseline (a process importing fastify, pg and ioredis), the telemetry
// preload alone, and each service in each role with the preload, against a
// platform of the bench's own (emulator and topology, one database per
// service, a Redis prefix, an OTLP sink). The processes run one at a time;
// each round spawns every kind once, after an unmeasured warm-up round (the
// services migrate their databases then). Memory is reported ÷ the baseline
// of the same round; targets: ≤ 1.5× the baseline, ready in ≤ 1.5 s.
import { randomBytes } from 'node:crypto';
import { startBenchPlatform } from './bench-platform.ts';
import { benchApiKey, PHASES, postingPhases, relayPhases, settleOutbox } from './footprint-load.ts';
import {
  bare,
  baseline,
  type Measure,
  measure,
  type ProcessKind,
  preload,
  serviceProcess,
} from './footprint-processes.ts';
import { type BenchReport, type Check, median, round } from './report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.FOOTPRINT_IDLE_MS ?? 3000);
const SERVICES = ['jobs', 'matching', 'notifications', 'media'] as const;
const TARGET_RSS_RATIO = 1.5;
const TARGET_READY_MS = 1500;
/** RSS after 10,000 requests or events ÷ after 1,000: above, memory grows with work (a leak). */
const TARGET_LEAK_RATIO = 1.2;
/** FOOTPRINT_LOAD=off: the idle rounds only. */
const LOAD = process.env.FOOTPRINT_LOAD !== 'off';
/**
 * FOOTPRINT_NODE_FLAGS='--max-semi-space-size=1;--max-semi-space-size=2 --v8-pool-size=1':
 * each `;`-separated set of V8 flags is one more variant of the jobs API and
 * worker, idle and under work, with those flags in place of (or beside) the
 * services' own: a flag's effect on RSS and on the CPU time of the same work,
 * in the same run.
 */
const FLAG_VARIANTS = (process.env.FOOTPRINT_NODE_FLAGS ?? '')
  .split(';')
  .map((set) => set.trim().split(/\s+/).filter(Boolean))
  .filter((set) => set.length > 0);

/** The process with `flags` in place of the same flags' values in its arguments (or added before them). */
function withFlags(kind: ProcessKind, flags: string[]): ProcessKind {
  const nameOf = (arg: string) => arg.split('=')[0];
  const args = kind.args.filter((arg) => !flags.some((flag) => nameOf(flag) === nameOf(arg)));
  return { ...kind, name: `${kind.name} [${flags.join(' ')}]`, args: [...flags, ...args] };
}

export default async function footprint(): Promise<BenchReport> {
  const suffix = randomBytes(4).toString('hex');
  const platform = await startBenchPlatform(SERVICES, 'fp', suffix);
  const { databases } = platform;
  try {
    let kinds: ProcessKind[] = [bare, baseline, preload];
    SERVICES.forEach((service) => {
      const env = platform.env(service, `bench:fp${suffix}:${service}`);
      kinds.push(serviceProcess(service, 'api', env), serviceProcess(service, 'worker', env));
      if (service === 'jobs') {
        for (const flags of FLAG_VARIANTS) {
          kinds.push(
            withFlags(serviceProcess(service, 'api', env), flags),
            withFlags(serviceProcess(service, 'worker', env), flags),
          );
        }
      }
      // Telemetry's share of a service process: the same process with the SDK off (the preload then loads nothing).
      if (service === 'jobs') {
        const untraced = serviceProcess(service, 'api', { ...env, OTEL_SDK_DISABLED: 'true' });
        kinds.push({ ...untraced, name: 'jobs api, tracing off' });
      }
    });

    // FOOTPRINT_ONLY=jobs,media: only the kinds whose name has one of these (the baseline always runs).
    const only = process.env.FOOTPRINT_ONLY?.split(',').filter(Boolean);
    if (only) kinds = kinds.filter((k) => k === baseline || only.some((o) => k.name.includes(o)));
    const measured = new Map<string, Measure[]>(kinds.map((k) => [k.name, []]));
    for (let r = 0; r <= ROUNDS; r++) {
      for (const kind of kinds) {
        const result = await measure(kind, IDLE_MS);
        // Round 0 warms up: migrations, the file cache.
        if (r > 0) measured.get(kind.name)!.push(result);
      }
    }
    // Under work, once: the jobs API (HTTP requests) and the jobs worker (events its relay publishes).
    const loaded: Loaded[] = [];
    const suffixes = ['', ...FLAG_VARIANTS.map((flags) => ` [${flags.join(' ')}]`)];
    const key = LOAD ? await benchApiKey(databases[0]!) : '';
    for (const variant of LOAD ? suffixes : []) {
      const api = kinds.find((k) => k.name === `jobs api${variant}`);
      const worker = kinds.find((k) => k.name === `jobs worker${variant}`);
      if (!api || !worker) continue;
      const statuses = new Map<number, number>();
      const fast = { ...api, env: { ...api.env, RATE_LIMIT_MAX: '1000000' } };
      loaded.push({
        name: api.name,
        unit: 'requests',
        measure: await measure(fast, IDLE_MS, postingPhases(key, statuses)),
      });
      if (statuses.size > 0)
        console.log(`${api.name}: answers other than 202: ${JSON.stringify(Object.fromEntries(statuses))}`);
      await settleOutbox(databases[0]!);
      loaded.push({
        name: worker.name,
        unit: 'events',
        measure: await measure(worker, IDLE_MS, relayPhases(databases[0]!)),
      });
    }
    return report(kinds, measured, loaded);
  } finally {
    await platform.close();
  }
}

interface Loaded {
  name: string;
  unit: 'requests' | 'events';
  measure: Measure;
}

/** A service's start by step (its `started` message), the median of each: "imports 900 / connect 120 / …". */
function startSteps(runs: Measure[]): string {
  const steps = runs[0]?.startMs ? Object.keys(runs[0].startMs) : [];
  return steps
    .map((step) => `${step} ${Math.round(median(runs.map((m) => m.startMs?.[step] ?? 0)))}`)
    .join(' / ');
}

function report(kinds: ProcessKind[], measured: Map<string, Measure[]>, loaded: Loaded[]): BenchReport {
  const base = measured.get(baseline.name)!;
  /** Per round, this kind's RSS ÷ the baseline's in the same round. */
  const rssRatios = (name: string) => measured.get(name)!.map((m, i) => m.rssMb / base[i]!.rssMb);
  const rows: Record<string, string | number>[] = kinds.map((kind) => {
    const runs = measured.get(kind.name)!;
    return {
      process: kind.name,
      'idle RSS MB': round(median(runs.map((m) => m.rssMb)), 1),
      'RSS ÷ baseline': round(median(rssRatios(kind.name))),
      'spawn → ready ms': Math.round(median(runs.map((m) => m.readyMs))),
      'ready ÷ baseline': round(median(runs.map((m, i) => m.readyMs / base[i]!.readyMs))),
      'start CPU ms': Math.round(median(runs.map((m) => m.readyCpuMs))),
      'start CPU ÷ baseline': round(median(runs.map((m, i) => m.readyCpuMs / base[i]!.readyCpuMs))),
      'RSS MB, each round': runs.map((m) => m.rssMb.toFixed(0)).join(' / '),
      'start steps ms (median)': startSteps(runs),
    };
  });
  // Checked against the targets: the services as they run (not the variants of FOOTPRINT_NODE_FLAGS).
  const variant = (name: string) => name.endsWith(']');
  const checked = kinds.filter(
    (k) => k !== bare && k !== baseline && !k.name.endsWith('tracing off') && !variant(k.name),
  );
  const checks: Check[] = checked.flatMap((kind) => [
    {
      row: `${kind.name}: idle RSS ÷ fastify+pg+ioredis`,
      values: rssRatios(kind.name),
      kind: 'max' as const,
      target: TARGET_RSS_RATIO,
      unit: 'ratio' as const,
      beside: `baseline ${median(base.map((m) => m.rssMb)).toFixed(0)} MB`,
    },
    {
      row: `${kind.name}: spawn → ready`,
      values: measured.get(kind.name)!.map((m) => m.readyMs),
      kind: 'max' as const,
      target: TARGET_READY_MS,
      unit: 'ms' as const,
      beside: `baseline ${median(base.map((m) => m.readyMs)).toFixed(0)} ms`,
    },
  ]);
  const baseMb = median(base.map((m) => m.rssMb));
  const [first, tenth] = PHASES.map((p) => p.name);
  const after = (l: Loaded, name: string) => l.measure.phases.find((p) => p.name === name)!.rssMb;
  /** CPU ms per 1,000 units of work over both phases (10,000 in all). */
  const cpuPerThousand = (l: Loaded) =>
    (l.measure.phases.reduce((sum, p) => sum + p.cpuMs, 0) / PHASES.reduce((sum, p) => sum + p.count, 0)) *
    1000;
  for (const l of loaded) {
    rows.push({
      process: `${l.name}, under work (${l.unit})`,
      'idle RSS MB': round(l.measure.rssMb, 1),
      'spawn → ready ms': Math.round(l.measure.readyMs),
      'RSS MB after 1,000': round(after(l, first!), 1),
      'RSS MB after 10,000': round(after(l, tenth!), 1),
      'RSS ÷ baseline': round(after(l, first!) / baseMb),
      '10,000 ÷ 1,000': round(after(l, tenth!) / after(l, first!)),
      'CPU ms per 1,000': Math.round(cpuPerThousand(l)),
    });
    if (variant(l.name)) continue;
    checks.push(
      {
        row: `${l.name}: RSS after 1,000 ${l.unit} ÷ fastify+pg+ioredis`,
        values: [after(l, first!) / baseMb],
        kind: 'max' as const,
        target: TARGET_RSS_RATIO,
        unit: 'ratio' as const,
        beside: `${after(l, first!).toFixed(0)} MB`,
      },
      {
        row: `${l.name}: RSS after 10,000 ${l.unit} ÷ after 1,000`,
        values: [after(l, tenth!) / after(l, first!)],
        kind: 'max' as const,
        target: TARGET_LEAK_RATIO,
        unit: 'ratio' as const,
        beside: `${after(l, tenth!).toFixed(0)} MB`,
      },
    );
  }
  return {
    description: `Idle RSS ${IDLE_MS} ms after ready, spawn → ready and the CPU time of that start, ${ROUNDS} rounds after a warm-up, one process at a time; ratios ÷ a process importing fastify, pg and ioredis in the same round (issue 31).${loaded.length > 0 ? ` Under work (once, after the rounds): RSS ${IDLE_MS} ms after 1,000 and after 10,000 requests or events; there "RSS ÷ baseline" is after 1,000 ÷ the baseline, "10,000 ÷ 1,000" the leak check, "CPU ms per 1,000" the process's CPU time per 1,000 over the 10,000.` : ''}`,
    rows,
    ratios: Object.fromEntries(checked.map((k) => [`${k.name} RSS ÷ baseline`, median(rssRatios(k.name))])),
    checks,
  };
}
