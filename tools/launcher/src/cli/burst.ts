// `pnpm burst [--events N] [--time-scale F] [--worker-start S] [--out docs/img/scaling-burst.svg]`
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
// run measured (scaling/predict.ts; docs/capacity.md).
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { parseConfig } from '@hireflow/config';
import { type CloudEvent, createEvent, SERVICE_NAMES, workerScaling } from '@hireflow/contracts';
import { SnsPublisher } from '@hireflow/messaging';
import { awsConfigSchema, awsSettings, createSnsClient } from '@hireflow/runtime/aws';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ScalingRecord } from '../autoscaler.ts';
import { type ChartPoint, scalingChart } from '../scaling/chart.ts';
import { scaleTime } from '../scaling/decide.ts';
import { BURST_POOLS, compare, perWorkerRate, predictBurst } from '../scaling/predict.ts';

const root = resolve(import.meta.dirname, '../../../..');
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    'time-scale': { type: 'string', default: '0.05' },
    deadline: { type: 'string', default: '600' },
    out: { type: 'string', default: 'docs/img/scaling-burst.svg' },
    // How long a worker the autoscaler adds takes to take work, for the prediction.
    'worker-start': { type: 'string', default: '10' },
  },
});
const EVENTS = Number(args.events);
const TIME_SCALE = Number(args['time-scale']);
const TENANTS = 20;
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
      HIREFLOW_PORT_BASE: '0',
      HIREFLOW_API_PORT: '0',
      EMULATOR_PORT: '0',
      MAIL_SMTP_PORT: '0',
      MAIL_UI_PORT: '0',
      WEBHOOK_RECEIVER_PORT: '0',
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

async function publishBurst(awsEndpoint: string, events: CloudEvent[]) {
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
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  for (const service of SERVICE_NAMES)
    await client.query(`DROP DATABASE IF EXISTS hireflow_${instance}_${service} WITH (FORCE)`);
  await client.end();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `hf-${instance}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

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
  const startedAt = Date.now();
  const events = burstEvents(EVENTS);
  await publishBurst(running.urls['sns/sqs']!, events);
  const publishSeconds = (Date.now() - startedAt) / 1000;
  console.log(`published ${events.length} events in ${publishSeconds.toFixed(1)} s`);

  // Done once the burst was seen and every pool is back at its minimum with nothing waiting.
  const policies = Object.fromEntries(SERVICE_NAMES.map((s) => [s, scaleTime(workerScaling[s], TIME_SCALE)]));
  const deadline = startedAt + Number(args.deadline) * 1000;
  let records: ScalingRecord[] = [];
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    records = (await readRecords()).filter((r) => Date.parse(r.at) >= startedAt);
    const last = new Map(records.map((r) => [r.service, r]));
    const seen = records.some((r) => r.inbox + r.jobs > 0);
    const settled = [...last.values()].every(
      (r) => r.workers === policies[r.service]!.minWorkers && r.inbox + r.jobs === 0,
    );
    if ((seen && settled) || Date.now() > deadline || interrupted) break;
  }

  const series: Record<string, ChartPoint[]> = {};
  for (const r of records) {
    series[r.service] ??= [];
    series[r.service]!.push({
      t: (Date.parse(r.at) - startedAt) / 1000,
      backlog: r.inbox + r.jobs,
      oldestAgeSeconds: r.oldestAgeSeconds,
      workers: r.workers,
    });
  }
  // Every 5 s: each service that had work, as backlog / oldest age / workers.
  const active = Object.keys(series).filter((svc) => series[svc]!.some((p) => p.backlog > 0));
  console.log(`\n   t  ${active.map((svc) => `${svc} (backlog, oldest, workers)`.padEnd(36)).join('')}`);
  const end = Math.max(...active.flatMap((svc) => series[svc]!.map((p) => p.t)));
  for (let t = 0; t <= end; t += 5) {
    const cells = active.map((svc) => {
      const p = series[svc]!.findLast((point) => point.t <= t) ?? series[svc]![0]!;
      return `${String(p.backlog).padStart(6)} ${p.oldestAgeSeconds.toFixed(0).padStart(4)} s ${String(p.workers).padStart(3)}`.padEnd(
        36,
      );
    });
    console.log(`${String(t).padStart(4)}  ${cells.join('')}`);
  }
  for (const r of records.filter((record) => record.reason)) {
    console.log(
      `${((Date.parse(r.at) - startedAt) / 1000).toFixed(0).padStart(4)} s  ${r.service}: ${r.reason}`,
    );
  }
  const shown = Object.fromEntries(
    Object.entries(series).filter(([, points]) => points.some((p) => p.backlog > 0)),
  );
  const maxWorkers = Object.fromEntries(SERVICE_NAMES.map((s) => [s, workerScaling[s].maxWorkers]));
  const out = resolve(root, args.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(
    out,
    scalingChart(`A burst of ${EVENTS} events, policy durations × ${TIME_SCALE}`, shown, maxWorkers),
  );
  console.log(`\nchart: ${out}`);
  const peak = Object.fromEntries(
    Object.entries(series).map(([s, points]) => [s, Math.max(...points.map((p) => p.workers))]),
  );
  console.log(`peak workers: ${JSON.stringify(peak)}`);

  // The capacity model's prediction for this burst beside the run: the pools
  // the burst loads, each with its peak workers and its drain time (from the
  // first event published to the last sample with work waiting).
  const load = { events: EVENTS, publishSeconds, openPostingsPerTenant: 0 };
  console.log(
    `\nprediction vs run (a worker starts in ${args['worker-start']} s; within 30 %: measured ÷ predicted 0.7–1.3)`,
  );
  for (const service of BURST_POOLS) {
    const points = series[service] ?? [];
    const waiting = points.filter((p) => p.backlog > 0);
    const measuredDrain = waiting.length > 0 ? Math.max(...waiting.map((p) => p.t)) : 0;
    const measuredPeak = points.length > 0 ? Math.max(...points.map((p) => p.workers)) : 0;
    const rate = perWorkerRate(service, load);
    const predicted = predictBurst(load, policies[service]!, rate, {
      intervalSeconds: 1,
      startSeconds: Number(args['worker-start']),
    });
    const workers = compare(predicted.peakWorkers, measuredPeak);
    const drain = compare(predicted.drainSeconds, measuredDrain);
    console.log(
      `${service.padEnd(14)} ${rate.toFixed(0)}/s a worker; peak workers predicted ${predicted.peakWorkers}, run ${measuredPeak} (${workers.ratio.toFixed(2)}${workers.within ? '' : ', outside 30 %'}); drain predicted ${predicted.drainSeconds} s, run ${measuredDrain.toFixed(0)} s (${drain.ratio.toFixed(2)}${drain.within ? '' : ', outside 30 %'})`,
    );
  }
} finally {
  await tearDown(launcher.child);
  await rm(join(root, stateDir), { recursive: true, force: true });
}
