// `pnpm burst [--events N] [--time-scale F] [--worker-start S] [--out docs/img/scaling-burst.svg]
//             [--save run.json] [--replay run.json]`
//
// Shows the local autoscaler at work (docs/operations.md, "Scaling"): starts
// `pnpm start` as an instance of its own (free ports, its own databases,
// queues and Redis prefix), publishes a burst of events straight into SNS
// (candidates registering across 20 tenants), and follows each pool as
// it grows, drains the backlog and shrinks back. Prints depth, age and worker
// count over time and writes an SVG chart. Bounded: it stops after the
// pools are back at their minimum, or after --deadline seconds, and always
// tears its instance down. Traffic goes to 127.0.0.1 only. At the end it
// prints the capacity model's prediction for the same burst beside what the
// run measured, with the per-worker cost and start time calibrated in the run
// before the fleet grew (scaling/predict.ts; docs/capacity.md). `--save`
// writes the run to a file; `--replay` prints the comparison of a saved run
// without starting anything.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { parseConfig } from '@hireflow/config';
import {
  type CloudEvent,
  createEvent,
  SERVICE_NAMES,
  type WorkerScalingPolicy,
  workerScaling,
} from '@hireflow/contracts';
import { SnsPublisher } from '@hireflow/messaging';
import { awsConfigSchema, awsSettings, createSnsClient } from '@hireflow/runtime/aws';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ScalingRecord } from '../autoscaler.ts';
import { FREE_PORTS } from '../free-ports.ts';
import { readLocalSecrets } from '../local-secrets.ts';
import { readTargets } from '../prometheus/targets.ts';
import { scalingChart } from '../scaling/chart.ts';
import { phaseReport, residentMemory } from '../scaling/costs.ts';
import { type BurstRun, compareRun } from '../scaling/predict.ts';
import { type BurstProbe, burstCounters, readProcStat } from '../scaling/probe.ts';

const root = resolve(import.meta.dirname, '../../../..');
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    'time-scale': { type: 'string', default: '0.05' },
    deadline: { type: 'string', default: '600' },
    out: { type: 'string', default: 'docs/img/scaling-burst.svg' },
    // How long a worker the autoscaler adds takes to take work, for the prediction when the run scaled out none.
    'worker-start': { type: 'string', default: '10' },
    // Write the run (samples, publish progress, load average) to a file; replay one without running.
    save: { type: 'string' },
    replay: { type: 'string' },
  },
});
const EVENTS = Number(args.events);
const TIME_SCALE = Number(args['time-scale']);
const TENANTS = 20;
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const instance = `burst${randomBytes(3).toString('hex')}`;
const stateDir = `.local/${instance}`;
const SKILLS = [
  'node',
  'postgres',
  'typescript',
  'react',
  'aws',
  'kubernetes',
  'go',
  'python',
  'sql',
  'redis',
];

/**
 * The burst: candidates registering across 20 tenants. Each is a matching
 * computation and a welcome email: work for two pools. (Postings would
 * multiply it: every fitting pair is a match event for jobs and an email.)
 */
function burstEvents(count: number): CloudEvent[] {
  const tenants = Array.from({ length: TENANTS }, () => randomUUID());
  return Array.from({ length: count }, (_, i) => {
    const candidateId = randomUUID();
    return createEvent(
      'candidate.registered.v1',
      {
        candidateId,
        tenantId: tenants[i % TENANTS]!,
        name: `Candidate ${i}`,
        email: `candidate-${i}@burst.example`,
        headline: 'Engineer',
        skills: SKILLS.filter((_, k) => (k + i) % 3 === 0),
        location: 'Berlin',
      },
      { source: 'hireflow/jobs', subject: candidateId },
    );
  });
}

function startLauncher() {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'start.ts')], {
    cwd: root,
    env: {
      ...process.env,
      HIREFLOW_INSTANCE: instance,
      HIREFLOW_STATE_DIR: '.local',
      ...FREE_PORTS,
      HIREFLOW_SCALING: 'on',
      SCALING_TIME_SCALE: String(TIME_SCALE),
      SCALING_INTERVAL_MS: '1000',
      QUEUE_METRICS_INTERVAL_MS: '1000',
      LOG_LEVEL: 'warn',
      // The local mail catcher takes what it gets: no provider limit to wait on.
      EMAIL_RATE_MAX: '1000',
      // The burst measures queues, not traces: no trace viewer, no export.
      OTEL_SDK_DISABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((res, rej) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('Ctrl-C stops everything')) res();
      if (line.startsWith('launcher ') || / (ERROR|FATAL) /.test(line)) console.log(line);
    });
    child.once('exit', (code) => rej(new Error(`the launcher exited with ${code}`)));
  });
  return { child, ready };
}

/** Publishes the events in batches of ten; `progress` gets the count published after each batch. */
async function publishBurst(
  awsEndpoint: string,
  events: CloudEvent[],
  progress: (published: number) => void,
) {
  const sns = createSnsClient(
    awsSettings(
      parseConfig(awsConfigSchema, {
        ...process.env,
        AWS_ENDPOINT_URL: awsEndpoint,
        HIREFLOW_TOPOLOGY_PREFIX: '',
      }),
      { AWS_EC2_METADATA_DISABLED: 'true' },
    ),
  );
  try {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `${instance}-jobs-events` }));
    const publisher = new SnsPublisher(sns);
    for (let i = 0; i < events.length; i += 10) {
      const result = await publisher.publishBatch(
        TopicArn!,
        events.slice(i, i + 10).map((event) => ({ event })),
      );
      if (result.failed.length > 0) throw new Error(`publish failed: ${JSON.stringify(result.failed[0])}`);
      progress(Math.min(events.length, i + 10));
    }
  } finally {
    sns.destroy();
  }
}

async function readRecords(): Promise<ScalingRecord[]> {
  const text = await readFile(join(root, stateDir, 'scaling.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ScalingRecord);
}

async function tearDown(child: ReturnType<typeof startLauncher>['child']) {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  for (const service of SERVICE_NAMES)
    await client.query(`DROP DATABASE IF EXISTS hireflow_${instance}_${service} WITH (FORCE)`);
  await client.end();
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `hf-${instance}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

/**
 * Each pool's workers' CPU time and time waiting for a core (Linux
 * /proc/<pid>/task/<tid>/schedstat, all threads), summed per pool; a worker
 * that has exited keeps what it was last seen with. Beside it the probe
 * (scaling/probe.ts): every process of the instance, the launcher's (the
 * emulator and the mail catcher run in it) and the Postgres backends of its
 * databases too, with CPU and RSS; each database's commits, rollbacks,
 * deadlocks and lock waits; every other sample, the services' counters.
 * Elsewhere than Linux: nothing from /proc.
 */
function workerCpu(launcherPid: number | undefined, adminToken: string | undefined) {
  const seen = new Map<number, { service: string; cpu: number; wait: number }>();
  const series: NonNullable<BurstRun['cpu']> = {};
  const probe: BurstProbe = { processes: {}, databases: {}, counters: {} };
  const counters = new Map<number, { service: string; values: Record<string, number> }>();
  const database = new pg.Client({ connectionString: DATABASE_URL });
  const connected = database.connect().then(
    () => true,
    () => false,
  );
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let round = 0;
  const record = async (name: string, service: string, role: string, pid: number, t: number) => {
    const stat = await readProcStat(pid);
    if (!stat) return;
    probe.processes[name] ??= { service, role, samples: [] };
    probe.processes[name].samples.push([t, stat.cpuSeconds, stat.rssMiB]);
  };
  const sample = async (t: number) => {
    const processes = await readTargets(join(root, stateDir)).catch(() => []);
    const workers = processes.filter((p) => p.role === 'worker');
    for (const w of workers) {
      const tasks = await readdir(`/proc/${w.pid}/task`).catch(() => [] as string[]);
      let cpu = 0;
      let wait = 0;
      for (const tid of tasks) {
        const [run, queued] = (
          await readFile(`/proc/${w.pid}/task/${tid}/schedstat`, 'utf8').catch(() => '0 0')
        )
          .split(' ')
          .map(Number);
        cpu += run! / 1e9;
        wait += queued! / 1e9;
      }
      if (tasks.length > 0) seen.set(w.pid, { service: w.service, cpu, wait });
    }
    const totals = new Map<string, [number, number]>();
    for (const { service, cpu, wait } of seen.values()) {
      const [c, w] = totals.get(service) ?? [0, 0];
      totals.set(service, [c + cpu, w + wait]);
    }
    for (const [service, [cpu, wait]] of totals)
      series[service] = [...(series[service] ?? []), [t, cpu, wait]];

    if (launcherPid) await record('launcher', 'launcher', 'launcher', launcherPid, t);
    for (const p of processes) await record(p.name, p.service, p.role, p.pid, t);
    const info = await redis.info('server').catch(() => '');
    const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    if (redisPid) await record('redis', 'redis', 'shared', redisPid, t);
    if (await connected) {
      const prefix = `hireflow_${instance}_`;
      const backends = await database
        .query<{ pid: number; datname: string; lock: boolean }>(
          `SELECT pid, datname, wait_event_type = 'Lock' AS lock FROM pg_stat_activity WHERE starts_with(datname, $1)`,
          [prefix],
        )
        .then(
          (r) => r.rows,
          () => [],
        );
      for (const b of backends) {
        const service = b.datname.slice(prefix.length);
        await record(`postgres:${service}:${b.pid}`, service, 'postgres', b.pid, t);
      }
      const stats = await database
        .query<{ datname: string; commits: string; rollbacks: string; deadlocks: string }>(
          `SELECT datname, xact_commit AS commits, xact_rollback AS rollbacks, deadlocks
             FROM pg_stat_database WHERE starts_with(datname, $1)`,
          [prefix],
        )
        .then(
          (r) => r.rows,
          () => [],
        );
      for (const s of stats) {
        const service = s.datname.slice(prefix.length);
        const lockWaits = backends.filter((b) => b.datname === s.datname && b.lock).length;
        probe.databases[service] ??= [];
        probe.databases[service].push([
          t,
          Number(s.commits),
          Number(s.rollbacks),
          Number(s.deadlocks),
          lockWaits,
        ]);
      }
    }
    // The services' counters every other sample: a scrape costs each process a little CPU.
    if (round++ % 2 === 0) {
      await Promise.all(
        processes.map(async (p) => {
          const text = await fetch(`${p.admin}/metrics`, {
            signal: AbortSignal.timeout(2000),
            headers: adminToken ? { authorization: `Bearer ${adminToken}` } : {},
          }).then(
            (res) => (res.ok ? res.text() : undefined),
            () => undefined,
          );
          if (text) counters.set(p.pid, { service: p.service, values: burstCounters(text) });
        }),
      );
      const byService: Record<string, Record<string, number>> = {};
      for (const { service, values } of counters.values()) {
        byService[service] ??= {};
        const sum = byService[service];
        for (const [key, value] of Object.entries(values)) sum[key] = (sum[key] ?? 0) + value;
      }
      for (const [service, values] of Object.entries(byService)) {
        probe.counters[service] ??= [];
        probe.counters[service].push([t, values]);
      }
    }
  };
  const close = async () => {
    redis.disconnect();
    if (await connected) await database.end().catch(() => undefined);
  };
  return { sample, series, probe, close };
}

/** Runs the burst on an instance of its own and records it (then tears the instance down). */
async function runBurst(): Promise<BurstRun> {
  const launcher = startLauncher();
  // Ctrl-C: stop following, tear the instance down (below), exit.
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
    });
  }
  try {
    await launcher.ready;
    const running = JSON.parse(await readFile(join(root, stateDir, 'launcher.json'), 'utf8')) as {
      urls: Record<string, string>;
    };
    // The bounds the autoscaler runs with: time-scaled, maximums capped to the server's connections.
    const policies = JSON.parse(
      await readFile(join(root, stateDir, 'scaling-policies.json'), 'utf8'),
    ) as Record<string, WorkerScalingPolicy>;
    const loadAverage = [loadavg()[0]!];
    const adminToken = process.env.ADMIN_TOKEN || (await readLocalSecrets(join(root, stateDir))).ADMIN_TOKEN;
    const cpu = workerCpu(launcher.child.pid, adminToken);
    const startedAt = Date.now();
    const at = new Date(startedAt).toISOString();
    // Every 2 s from the first publish to the end (publishing included: the workers start on the first events).
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const next = Date.now() + 2000;
        await cpu.sample((Date.now() - startedAt) / 1000);
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    })();
    let records: ScalingRecord[] = [];
    try {
      const events = burstEvents(EVENTS);
      const published: [number, number][] = [[0, 0]];
      await publishBurst(running.urls['sns/sqs']!, events, (count) =>
        published.push([(Date.now() - startedAt) / 1000, count]),
      );
      const publishSeconds = (Date.now() - startedAt) / 1000;
      console.log(`published ${events.length} events in ${publishSeconds.toFixed(1)} s`);

      // Done once the burst was seen and every pool is back at its minimum with nothing waiting.
      const deadline = startedAt + Number(args.deadline) * 1000;
      for (;;) {
        await new Promise((r) => setTimeout(r, 2000));
        loadAverage.push(loadavg()[0]!);
        records = (await readRecords()).filter((r) => Date.parse(r.at) >= startedAt);
        const last = new Map(records.map((r) => [r.service, r]));
        const seen = records.some((r) => r.inbox + r.jobs > 0);
        const settled = [...last.values()].every(
          (r) => r.workers === policies[r.service]!.minWorkers && r.inbox + r.jobs === 0,
        );
        if ((seen && settled) || Date.now() > deadline || interrupted) break;
      }
      sampling = false;
      await sampler;
      const pools: BurstRun['pools'] = {};
      for (const r of records) {
        pools[r.service] ??= [];
        pools[r.service]!.push({
          t: (Date.parse(r.at) - startedAt) / 1000,
          backlog: r.inbox + r.jobs,
          inbox: r.inbox,
          jobs: r.jobs,
          oldestAgeSeconds: r.oldestAgeSeconds,
          workers: r.workers,
          ready: r.ready ?? r.workers,
          ...(r.reason ? { reason: r.reason } : {}),
        });
      }
      return {
        at,
        events: EVENTS,
        timeScale: TIME_SCALE,
        publishSeconds,
        published,
        pools,
        policies,
        cores: cpus().length,
        loadAverage,
        cpu: cpu.series,
        probe: cpu.probe,
      };
    } finally {
      sampling = false;
      await sampler;
      await cpu.close();
    }
  } finally {
    await tearDown(launcher.child);
    await rm(join(root, stateDir), { recursive: true, force: true });
  }
}

/** The run's pools over time, every 5 s, the autoscaler's decisions and the chart. */
async function showRun(run: BurstRun) {
  const series = run.pools;
  const active = Object.keys(series).filter((svc) => series[svc]!.some((p) => p.backlog > 0));
  console.log(`\n   t  ${active.map((svc) => `${svc} (inbox+tasks, oldest, workers)`.padEnd(40)).join('')}`);
  const end = Math.max(...active.flatMap((svc) => series[svc]!.map((p) => p.t)));
  for (let t = 0; t <= end; t += 5) {
    const cells = active.map((svc) => {
      const p = series[svc]!.findLast((point) => point.t <= t) ?? series[svc]![0]!;
      const backlog = p.inbox === undefined ? String(p.backlog) : `${p.inbox}+${p.jobs}`;
      return `${backlog.padStart(10)} ${p.oldestAgeSeconds.toFixed(0).padStart(4)} s ${String(p.workers).padStart(3)}`.padEnd(
        40,
      );
    });
    console.log(`${String(t).padStart(4)}  ${cells.join('')}`);
  }
  for (const [svc, points] of Object.entries(series)) {
    for (const p of points.filter((point) => point.reason))
      console.log(`${p.t.toFixed(0).padStart(4)} s  ${svc}: ${p.reason}`);
  }
  const shown = Object.fromEntries(active.map((svc) => [svc, series[svc]!]));
  const maxWorkers = Object.fromEntries(SERVICE_NAMES.map((s) => [s, workerScaling[s].maxWorkers]));
  const out = resolve(root, args.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(
    out,
    scalingChart(`A burst of ${run.events} events, policy durations × ${run.timeScale}`, shown, maxWorkers),
  );
  console.log(`\nchart: ${out}`);
  const peak = Object.fromEntries(
    Object.entries(series).map(([s, points]) => [s, Math.max(...points.map((p) => p.workers))]),
  );
  console.log(`peak workers: ${JSON.stringify(peak)}`);
}

/**
 * The capacity model's prediction for the burst beside the run, per pool the
 * burst loads: once with the benched ceilings, once with the per-worker rate
 * and worker start time calibrated in the run before it scaled out
 * (scaling/predict.ts; docs/capacity.md, "Prediction against a run").
 */
function report(run: BurstRun) {
  const load = run.loadAverage;
  console.log(
    `\nprediction vs run (${run.cores} cores, load average ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}; within 30 %: measured ÷ predicted 0.7–1.3)`,
  );
  for (const line of compareRun(run, { defaultStartSeconds: Number(args['worker-start']) }))
    console.log(line);
  if (run.probe) {
    console.log(
      '\nwhere the CPU went, phase by phase (cut where publishing ends and where each pool drains):',
    );
    for (const line of phaseReport(run)) console.log(line);
    const rss = Object.entries(residentMemory(run))
      .map(([name, r]) => `${name} ${r.firstMiB.toFixed(0)} → ${r.peakMiB.toFixed(0)} MiB (${r.processes})`)
      .join('; ');
    console.log(`RSS, the first seen of a process → the largest (processes): ${rss}`);
  }
}

const run = args.replay
  ? (JSON.parse(await readFile(resolve(args.replay), 'utf8')) as BurstRun)
  : await runBurst();
if (args.save && !args.replay) {
  await writeFile(resolve(args.save), `${JSON.stringify(run)}\n`);
  console.log(`run recorded in ${args.save} (pnpm burst --replay ${args.save} repeats the comparison)`);
}
if (!args.replay) await showRun(run);
report(run);
