// Outbox → relay → SNS → SQS → handler, next to the emulator's own SQS
// send → receive → delete throughput, interleaved in one run. The ratio is
// the figure: absolute numbers on this machine drift 2x within an hour.
import { randomUUID } from 'node:crypto';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createEvent, type Topology } from '@hireflow/contracts';
import { createDatabase, dropDatabase, ensureDatabase, migrateDatabase, type Sql } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { enqueueEvent, OutboxRelay, outboxMigrations, SnsPublisher, SqsConsumer } from '@hireflow/messaging';
import { provisionTopology } from '@hireflow/ops';
import { sqsBaseline, sqsLatencyBaseline } from './baselines/sqs.ts';
import { benchClientConfig, type SplitPipeline, startSplitPipeline } from './messaging-split.ts';
import { type BenchReport, type LatencyRound, latencyChecks, median, percentile, round } from './report.ts';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const THROUGHPUT_EVENTS = Number(process.env.BENCH_MESSAGING_EVENTS ?? 2000);
const PRODUCERS = 10;
const LATENCY_RATE_PER_S = 200;
const LATENCY_EVENTS = Number(process.env.BENCH_MESSAGING_LATENCY_EVENTS ?? 1000);
/** `BENCH_MESSAGING_SPLIT=0` skips the production-shape rows (relay and consumer, emulator in processes of their own). */
const SPLIT = process.env.BENCH_MESSAGING_SPLIT !== '0';

const topology: Topology = {
  topics: { 'jobs-events': { producer: 'jobs' } },
  queues: {
    inbox: {
      consumer: 'matching',
      subscriptions: [{ topic: 'jobs-events', types: ['job.closed.v1'] }],
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 5,
    },
  },
  messageRetentionSeconds: 3600,
  receiveWaitTimeSeconds: 1,
};

function closedEvent() {
  const postingId = randomUUID();
  return createEvent(
    'job.closed.v1',
    { jobId: postingId, tenantId: randomUUID(), closedAt: new Date().toISOString() },
    { source: 'hireflow/jobs', subject: postingId },
  );
}

interface Pipeline {
  committed(eventId: string): void;
  /** Resolves with the latencies once `count` events of this phase reached their handler. */
  expect(count: number): Promise<number[]>;
}

/**
 * Commit → handler-start latency. Whichever side is seen second computes it:
 * the relay can wake (NOTIFY) and the handler start before the committing
 * code has resumed after COMMIT, so the handler may be seen first.
 */
function pipelineProbe(): { probe: Pipeline; onHandler: (eventId: string) => void } {
  const committedAt = new Map<string, number>();
  const handledAt = new Map<string, number>();
  let latencies: number[] = [];
  let waiting: { count: number; resolve: (l: number[]) => void } | undefined;
  const record = (latency: number) => {
    latencies.push(Math.max(0, latency));
    if (waiting && latencies.length >= waiting.count) {
      waiting.resolve(latencies);
      waiting = undefined;
    }
  };
  return {
    probe: {
      committed(eventId) {
        const now = performance.now();
        const handled = handledAt.get(eventId);
        if (handled === undefined) committedAt.set(eventId, now);
        else {
          handledAt.delete(eventId);
          record(handled - now);
        }
      },
      expect(count) {
        latencies = [];
        return new Promise((resolve) => {
          waiting = { count, resolve };
        });
      },
    },
    onHandler(eventId) {
      const now = performance.now();
      const at = committedAt.get(eventId);
      if (at === undefined) handledAt.set(eventId, now);
      else {
        committedAt.delete(eventId);
        record(now - at);
      }
    },
  };
}

/** A probe for phases whose handler runs in another process. */
const unprobed: Pipeline = { committed() {}, expect: () => Promise.resolve([]) };

async function commitOne(em: Sql, probe: Pipeline): Promise<void> {
  const event = closedEvent();
  await em.fork().transactional(async (tx) => {
    await enqueueEvent(tx, event);
  });
  probe.committed(event.id);
}

/** `count` events, each in its own transaction, by 10 concurrent producers; returns commits/s. */
async function produce(em: Sql, probe: Pipeline, count: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PRODUCERS }, async () => {
      while (next < count) {
        next += 1;
        await commitOne(em, probe);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** At a steady rate well below saturation: commit → handler start latency. */
async function pipelineLatency(em: Sql, probe: Pipeline): Promise<number[]> {
  const done = probe.expect(LATENCY_EVENTS);
  const interval = 1000 / LATENCY_RATE_PER_S;
  const started = performance.now();
  const commits: Promise<void>[] = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    commits.push(commitOne(em, probe));
  }
  await Promise.all(commits);
  return done;
}

export default async function bench(): Promise<BenchReport> {
  const emulator = await startEmulator({ region: REGION });
  // A 30 s connect timeout, as the production shape's: two runs at load 44–57 died on the 3 s one.
  const sns = new SNSClient(benchClientConfig(REGION, emulator.endpoint));
  const sqs = new SQSClient(benchClientConfig(REGION, emulator.endpoint));
  const dbName = `hfbench_messaging_${randomUUID().slice(0, 8)}`;
  const url = `${SERVER}/${dbName}`;
  await ensureDatabase(url);
  const orm = createDatabase({ url, migrations: outboxMigrations });
  try {
    await migrateDatabase(orm);
    const topo = await provisionTopology(topology, { sns, sqs, prefix: 'bench-' });
    const baselineQueue = await provisionTopology(topology, { sns, sqs, prefix: 'bench-baseline-' });
    const { probe, onHandler } = pipelineProbe();
    const newRelay = () =>
      new OutboxRelay({
        orm,
        publisher: new SnsPublisher(sns),
        topicArns: { 'jobs-events': topo.topics['jobs-events']!.arn },
      });
    const split = SPLIT
      ? await startSplitPipeline({ databaseUrl: url, region: REGION, topology })
      : undefined;
    const consumer = new SqsConsumer({
      sqs,
      queue: topo.queues.inbox!,
      waitTimeSeconds: 1,
      handlers: { 'job.closed.v1': (event) => onHandler(event.id) },
    });
    await consumer.start();
    const em = orm.em;

    const baseline: number[] = [];
    const commitOnly: number[] = [];
    const drain: number[] = [];
    const endToEnd: number[] = [];
    const latencies: number[] = [];
    const sqsLatencies: number[] = [];
    const latencyRounds: LatencyRound[] = [];
    // What this one process (producers, relay, emulator, consumer) spent per event, and how busy its loop was.
    const commitCpu: Cpu[] = [];
    const drainCpu: Cpu[] = [];
    const e2eCpu: Cpu[] = [];
    const splitRounds: SplitRound[] = [];
    let relay: OutboxRelay | undefined;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        baseline.push(
          await sqsBaseline(sqs, baselineQueue.queues.inbox!.url, { messages: 4000, workers: 4 }),
        );
        // Relay stopped: what committing costs alone, and it leaves a backlog…
        let mark = cpuMark();
        commitOnly.push(await produce(em, probe, THROUGHPUT_EVENTS));
        commitCpu.push(cpuPerEvent(mark, THROUGHPUT_EVENTS));
        // …that a fresh relay drains through SNS and SQS to the handler.
        const drained = probe.expect(THROUGHPUT_EVENTS);
        const drainStart = performance.now();
        mark = cpuMark();
        relay = newRelay();
        await relay.start();
        await drained;
        drainCpu.push(cpuPerEvent(mark, THROUGHPUT_EVENTS));
        drain.push(THROUGHPUT_EVENTS / ((performance.now() - drainStart) / 1000));
        // Relay running: producers and pipeline together, first commit → last handler start.
        const handled = probe.expect(THROUGHPUT_EVENTS);
        const e2eStart = performance.now();
        mark = cpuMark();
        await produce(em, probe, THROUGHPUT_EVENTS);
        await handled;
        e2eCpu.push(cpuPerEvent(mark, THROUGHPUT_EVENTS));
        endToEnd.push(THROUGHPUT_EVENTS / ((performance.now() - e2eStart) / 1000));
        const pipeline = await pipelineLatency(em, probe);
        const emulator = await sqsLatencyBaseline(sqs, baselineQueue.queues.inbox!.url, {
          ratePerSecond: LATENCY_RATE_PER_S,
          messages: LATENCY_EVENTS,
        });
        latencies.push(...pipeline);
        sqsLatencies.push(...emulator);
        latencyRounds.push({
          p50: percentile(pipeline, 50),
          p99: percentile(pipeline, 99),
          sqsP50: percentile(emulator, 50),
          sqsP99: percentile(emulator, 99),
        });
        await relay.close();
        relay = undefined;
        if (split) splitRounds.push(await splitRound(split, em));
      }
    } finally {
      await Promise.all([relay?.close(), consumer.close()]);
      await split?.close();
    }
    const best = (xs: number[]) => Math.max(...xs);
    const row = (variant: string, perRound: number[], unit = 'events/s') => ({
      variant,
      best: `${round(best(perRound), 0)} ${unit}`,
      'per round': perRound.map((x) => round(x, 0)).join(' / '),
      'p50 ms': '',
      'p99 ms': '',
    });
    // In one thread every phase's CPU adds up: with commits alone at c ms a
    // commit and the drain at d ms an event, end to end can reach c ÷ (c + d)
    // of the commits' rate at best (both at their most efficient, the loop busy).
    const ceiling = commitCpu.map((c, i) => c.ms / (c.ms + drainCpu[i]!.ms));
    const splitCheck = (r: SplitRound) => r.endToEnd / Math.min(r.commitOnly, r.baseline);
    const rows = [
      row('baseline: fauxqs SQS SendBatch(10) → Receive(10) → DeleteBatch, 4 workers', baseline, 'msg/s'),
      row(`outbox commits alone (${PRODUCERS} producers, 1 event per MikroORM tx)`, commitOnly, 'tx/s'),
      row('drain: committed backlog → relay → SNS → SQS → handler', drain),
      row('end to end: producers committing while relay and consumer run', endToEnd),
      {
        variant: 'process CPU per event (ms) and event loop busy: commits alone; drain; end to end',
        best: '',
        'per round': [commitCpu, drainCpu, e2eCpu].map((xs) => xs.map(formatCpu).join(' / ')).join(' ; '),
        'p50 ms': '',
        'p99 ms': '',
      },
      {
        variant: 'one-thread ceiling of end to end ÷ commits alone: commit CPU ÷ (commit + drain CPU)',
        best: '',
        'per round': ceiling.map((x) => round(x, 2)).join(' / '),
        'p50 ms': '',
        'p99 ms': '',
      },
      ...splitRows(splitRounds),
      {
        variant: `latency at ${LATENCY_RATE_PER_S} events/s: commit → handler start`,
        best: '',
        'per round': '',
        'p50 ms': round(percentile(latencies, 50)),
        'p99 ms': round(percentile(latencies, 99)),
      },
      {
        variant: `baseline latency at ${LATENCY_RATE_PER_S} msg/s: fauxqs SendMessage → ReceiveMessage (long poll)`,
        best: '',
        'per round': '',
        'p50 ms': round(percentile(sqsLatencies, 50)),
        'p99 ms': round(percentile(sqsLatencies, 99)),
      },
    ];
    return {
      checks: [
        {
          row: 'end to end events/s ÷ slower of (commits alone, emulator SQS alone)',
          values: endToEnd.map((e2e, i) => e2e / Math.min(commitOnly[i]!, baseline[i]!)),
          kind: 'min',
          target: 0.8,
          unit: 'ratio',
          beside: `commits alone ${round(median(commitOnly), 0)} tx/s, SQS alone ${round(median(baseline), 0)} msg/s; one-thread ceiling ${round(median(ceiling), 2)}`,
        },
        ...(splitRounds.length > 0
          ? [
              {
                row: 'end to end, relay + consumer and emulator in processes of their own ÷ slower of (commits alone, SQS alone)',
                values: splitRounds.map(splitCheck),
                kind: 'min' as const,
                target: 0.8,
                unit: 'ratio' as const,
                beside: `commits alone ${round(median(splitRounds.map((r) => r.commitOnly)), 0)} tx/s, SQS alone ${round(median(splitRounds.map((r) => r.baseline)), 0)} msg/s`,
              },
            ]
          : []),
        ...latencyChecks(`commit → handler start at ${LATENCY_RATE_PER_S}/s`, latencyRounds, {
          p50: 13,
          p99: 57,
        }),
      ],
      description:
        'Events/s and commit → handler-start latency of the outbox pipeline, beside the emulator’s own SQS throughput, interleaved rounds in one run.',
      rows,
      ratios: {
        'drain ÷ SQS baseline': best(drain) / best(baseline),
        'end to end ÷ SQS baseline': best(endToEnd) / best(baseline),
      },
    };
  } finally {
    try {
      await orm.close();
      sns.destroy();
      sqs.destroy();
      await emulator.stop();
    } finally {
      // WITH (FORCE): whatever connection the closing left behind does not keep the database.
      await dropDatabase(url);
    }
  }
}

function cpuMark() {
  return { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() };
}

/** Process CPU per event (ms) and the main thread's event-loop utilisation (0–1). */
interface Cpu {
  ms: number;
  busy: number;
}

/** Process CPU (all threads) per event since the mark, with the main thread's event-loop utilisation. */
function cpuPerEvent(mark: ReturnType<typeof cpuMark>, events: number): Cpu {
  const cpu = process.cpuUsage(mark.cpu);
  const busy = performance.eventLoopUtilization(mark.elu).utilization;
  return { ms: (cpu.user + cpu.system) / 1000 / events, busy };
}

function formatCpu(cpu: Cpu): string {
  return `${round(cpu.ms, 2)} (${round(cpu.busy * 100, 0)} %)`;
}

/** One round of the production shape: rates, and CPU per event of each process in each phase. */
interface SplitRound {
  baseline: number;
  commitOnly: number;
  drain: number;
  endToEnd: number;
  /** Per phase (commits alone, drain, end to end): producers' process, pipeline process, emulator process. */
  cpu: { producers: Cpu; pipeline: number; emulator: number }[];
}

/**
 * The same phases with the relay and the consumer in a process of their own
 * and the emulator in another: what the producers' process can commit alone,
 * the pipeline process draining that backlog, and both at once.
 */
async function splitRound(split: SplitPipeline, em: Sql): Promise<SplitRound> {
  const measure = async (run: () => Promise<unknown>) => {
    const mark = cpuMark();
    const children = split.cpuMs();
    const started = performance.now();
    await run();
    const seconds = (performance.now() - started) / 1000;
    const after = split.cpuMs();
    return {
      rate: THROUGHPUT_EVENTS / seconds,
      cpu: {
        producers: cpuPerEvent(mark, THROUGHPUT_EVENTS),
        pipeline: (after.pipeline - children.pipeline) / THROUGHPUT_EVENTS,
        emulator: (after.emulator - children.emulator) / THROUGHPUT_EVENTS,
      },
    };
  };
  const baseline = await sqsBaseline(split.sqs, split.baselineQueueUrl, { messages: 4000, workers: 4 });
  // The pipeline process's relay is stopped: commits alone leave a backlog…
  const commits = await measure(() => produce(em, unprobed, THROUGHPUT_EVENTS));
  // …that its relay, started, drains.
  const drain = await measure(async () => {
    const drained = await split.phase(THROUGHPUT_EVENTS, true);
    await drained.done;
  });
  // Relay running: the producers here, the pipeline there, first commit → last handler start.
  const endToEnd = await measure(async () => {
    const handled = await split.phase(THROUGHPUT_EVENTS, false);
    await produce(em, unprobed, THROUGHPUT_EVENTS);
    await handled.done;
  });
  await split.stopRelay();
  return {
    baseline,
    commitOnly: commits.rate,
    drain: drain.rate,
    endToEnd: endToEnd.rate,
    cpu: [commits.cpu, drain.cpu, endToEnd.cpu],
  };
}

function splitRows(rounds: SplitRound[]): Record<string, string>[] {
  if (rounds.length === 0) return [];
  const rateRow = (variant: string, values: number[], unit: string) => ({
    variant,
    best: `${round(Math.max(...values), 0)} ${unit}`,
    'per round': values.map((x) => round(x, 0)).join(' / '),
    'p50 ms': '',
    'p99 ms': '',
  });
  return [
    rateRow(
      'production shape: baseline SQS alone, emulator in its own process',
      rounds.map((r) => r.baseline),
      'msg/s',
    ),
    rateRow(
      'production shape: outbox commits alone (relay stopped in its process)',
      rounds.map((r) => r.commitOnly),
      'tx/s',
    ),
    rateRow(
      'production shape: drain by the relay + consumer process',
      rounds.map((r) => r.drain),
      'events/s',
    ),
    rateRow(
      'production shape: end to end, producers here, relay + consumer there',
      rounds.map((r) => r.endToEnd),
      'events/s',
    ),
    {
      variant:
        'production shape, CPU per event (ms) producers (loop busy) | pipeline | emulator: commits alone; drain; end to end',
      best: '',
      'per round': [0, 1, 2]
        .map((phase) =>
          rounds
            .map((r) => {
              const c = r.cpu[phase]!;
              return `${formatCpu(c.producers)} | ${round(c.pipeline, 2)} | ${round(c.emulator, 2)}`;
            })
            .join(' / '),
        )
        .join(' ; '),
      'p50 ms': '',
      'p99 ms': '',
    },
  ];
}
