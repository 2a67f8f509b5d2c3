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
import { topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { provisionTopology } from '@hireflow/ops';
import { createSnsClient, createSqsClient } from '@hireflow/runtime';
import { createS3Client } from '@hireflow/runtime/s3';
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
import { startOtlpSink } from './tracing-system.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.FOOTPRINT_IDLE_MS ?? 3000);
const SERVICES = ['jobs', 'matching', 'notifications', 'media'] as const;
const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const TARGET_RSS_RATIO = 1.5;
const TARGET_READY_MS = 1500;

export default async function footprint(): Promise<BenchReport> {
  const suffix = randomBytes(4).toString('hex');
  const emulator = await startEmulator({ region: REGION });
  const sink = await startOtlpSink();
  const databases = SERVICES.map((service) => `${SERVER}/hfbench_fp_${service}_${suffix}`);
  try {
    const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
    const clients = { sns: createSnsClient(aws), sqs: createSqsClient(aws), s3: createS3Client(aws) };
    const provisioned = await provisionTopology(topology, { ...clients, prefix: `fp-${suffix}-` });
    for (const client of Object.values(clients)) client.destroy();
    for (const url of databases) await ensureDatabase(url);

    let kinds: ProcessKind[] = [bare, baseline, preload];
    SERVICES.forEach((service, i) => {
      const env = {
        OTEL_SERVICE_NAME: service,
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
        DATABASE_URL: databases[i]!,
        REDIS_PREFIX: `bench:fp${suffix}:${service}`,
        AWS_REGION: REGION,
        AWS_ENDPOINT_URL: emulator.endpoint,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_EC2_METADATA_DISABLED: 'true',
        HIREFLOW_TOPOLOGY_PREFIX: provisioned.prefix,
        // Nothing is sent while idle; no server needs to answer.
        SMTP_URL: 'smtp://127.0.0.1:9',
        PORT: '0',
        ADMIN_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      };
      kinds.push(serviceProcess(service, 'api', env), serviceProcess(service, 'worker', env));
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
    return report(kinds, measured);
  } finally {
    await sink.close();
    await emulator.stop();
    for (const url of databases) await dropDatabase(url).catch(() => undefined);
  }
}

function report(kinds: ProcessKind[], measured: Map<string, Measure[]>): BenchReport {
  const base = measured.get(baseline.name)!;
  /** Per round, this kind's RSS ÷ the baseline's in the same round. */
  const rssRatios = (name: string) => measured.get(name)!.map((m, i) => m.rssMb / base[i]!.rssMb);
  const rows = kinds.map((kind) => {
    const runs = measured.get(kind.name)!;
    return {
      process: kind.name,
      'idle RSS MB': round(median(runs.map((m) => m.rssMb)), 1),
      'RSS ÷ baseline': round(median(rssRatios(kind.name))),
      'spawn → ready ms': Math.round(median(runs.map((m) => m.readyMs))),
      'ready ÷ baseline': round(median(runs.map((m, i) => m.readyMs / base[i]!.readyMs))),
      'RSS MB, each round': runs.map((m) => m.rssMb.toFixed(0)).join(' / '),
    };
  });
  const checked = kinds.filter((k) => k !== bare && k !== baseline && !k.name.endsWith('tracing off'));
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
  return {
    description: `Idle RSS ${IDLE_MS} ms after ready and spawn → ready, ${ROUNDS} rounds after a warm-up, one process at a time; ratios ÷ a process importing fastify, pg and ioredis in the same round (issue 31).`,
    rows,
    ratios: Object.fromEntries(checked.map((k) => [`${k.name} RSS ÷ baseline`, median(rssRatios(k.name))])),
    checks,
  };
}
