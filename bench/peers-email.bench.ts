// `pnpm bench peers-email` (issue 30, part b of docs/performance.md "Peers"):
// the notifications welcome-email path against the same path built from what
// a Node team would pick, interleaved in one process and one run:
//
//   Hireflow: event → SnsPublisher → SNS → SQS → SqsConsumer (inbox,
//     IdempotentBatcher, projection + notification log + admission in
//     Postgres) → BullMQ `email` (fair queue) → email worker (lease claim,
//     log read, SMTP, log write + completion) → smtp-server.
//   peer: event → PublishBatch → SNS → SQS → sqs-consumer 15 (batch mode,
//     batchSize 10) → Powertools `makeIdempotent` on Redis per event →
//     BullMQ addBulk (the recipient and name in the job) → BullMQ worker →
//     Powertools `makeIdempotent` on Redis per send → nodemailer → the
//     same smtp-server.
//   ceiling: the peer pipeline as it is, plus the Postgres writes Hireflow's
//     guarantees need, with plain `pg` on tables of its own
//     (peers-email-ceiling.ts): in the consumer's batch, BEGIN with the event
//     keys' claim, per event the candidate's upsert with the address's lock
//     and the intent with its admission, the decisions with COMMIT (before
//     the addBulk); around the SMTP send, the send's claim and its record.
//     What Hireflow's path could reach with its durable writes and nothing
//     else of its own: Hireflow ÷ ceiling is its implementation's overhead,
//     ceiling ÷ peer the design's price.
//
// Same emulator, same SMTP sink (no parsing), the same rendered email (the
// notifications templates, an unsubscribe link, Message-ID and
// X-Idempotency-Key), the same SMTP pool and worker concurrency, the same
// inbox concurrency (10, the SQS batch). Both sides use one Redis of this
// bench's own (a redis-server started on a free port, persistence off as the
// shared one), so its CPU and command counts are theirs alone; Postgres CPU
// is the sum of the bench database's backends' CPU (/proc/<pid>/stat of the
// pids pg_stat_activity lists for it; pg_stat_statements is not preloaded
// here). Figures per email: emails/s of a burst, process CPU, Postgres
// backend CPU, Redis CPU and commands, Postgres commits, WAL bytes (server
// wide); then publish → SMTP accept at a steady 50 events/s; at the end, the
// rows each table of the bench database had inserted and updated (HOT or not)
// per Hireflow email over the run (pg_stat_user_tables).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import {
  CreateTopicCommand,
  PublishBatchCommand,
  PublishCommand,
  type SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type CloudEvent, parseEvent, type Topology, topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { idempotencyKey } from '@hireflow/idempotency';
import { SnsPublisher } from '@hireflow/messaging';
import { messageIdFor, render } from '@hireflow/notifications/email';
import { notificationsService } from '@hireflow/notifications/service';
import { startWorker } from '@hireflow/notifications/worker';
import { provisionTopology } from '@hireflow/ops';
import {
  type Closeable,
  connectDeps,
  createLogger,
  createSnsClient,
  createSqsClient,
} from '@hireflow/runtime';
import { freePort } from '@hireflow/testing';
import { candidateRegistered } from '@hireflow/testing/events';
import { keyDigest, startSmtpCatcher } from '@hireflow/testing/smtp';
import { createClient } from '@redis/client';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { Consumer } from 'sqs-consumer';
import { acceptedCount, welcomeLatencies } from './email-latency.ts';
import { type DurableWrites, startDurableWrites } from './peers-email-ceiling.ts';
import { type BenchReport, type Check, median, percentile, round } from './report.ts';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EMAILS = Number(process.env.BENCH_EMAILS ?? 600);
const LATENCY_RATE_PER_S = 50;
const LATENCY_EMAILS = Number(process.env.BENCH_LATENCY_EMAILS ?? 200);
/** `1`: every service's inbox subscribes, as before (to measure what the emulator's fan-out cost this side). */
const FULL_TOPOLOGY = process.env.BENCH_FULL_TOPOLOGY === '1';
const CONCURRENCY = 10;
const POOL = 5;
/** The ceiling's Postgres connections: the notifications worker's DATABASE_POOL_MAX (its default). */
const DB_POOL = 10;
const TIMEOUT_MS = 180_000;
/** Powertools' in-progress expiry: Hireflow's send lease (SEND_LEASE_MS) and handler lease. */
const LEASE_MS = 15_000;
const FROM = 'Hireflow <no-reply@hireflow.local>';
const UNSUBSCRIBE_BASE = 'http://127.0.0.1:3003/v1/unsubscribe?token=';
const CLOCK_TICK_MS = 10; // getconf CLK_TCK = 100 on Linux

interface Side {
  name: string;
  /** Publishes the events as the side's producer would (batches of 10, 4 at once). */
  publishBurst(events: CloudEvent[]): Promise<void>;
  publishOne(event: CloudEvent): Promise<void>;
}

interface PhaseCost {
  emailsPerS: number;
  processCpuMs: number;
  postgresCpuMs: number;
  redisCpuMs: number;
  redisCommands: number;
  redisUsec: number;
  commits: number;
  /** Server-wide WAL bytes per email (pg_current_wal_lsn: the machine's other databases count too). */
  walBytes: number;
  /** Redis calls per email by command (INFO commandstats: a script's own calls count under their command). */
  redisByCommand: Map<string, number>;
}

export default async function peersEmailBench(): Promise<BenchReport> {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `hfbench_peersemail_${suffix}`;
  const redisServer = await startRedis();
  const emulator = await startEmulator({ region: REGION });
  const smtp = await startSmtpCatcher({ parse: false });
  const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
  const sns = createSnsClient(aws);
  const sqs = createSqsClient(aws);
  const admin = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await admin.connect();
  const closers: (() => Promise<unknown>)[] = [];
  try {
    // ---- Hireflow: the notifications worker role, as the bench of notifications starts it.
    // Only notifications' inboxes subscribe: the other services' inboxes would get a copy of
    // every event too, and the in-process emulator's work for those copies (SNS → SQS for
    // queues nobody reads here) would count in this side's CPU per email. In production that
    // fan-out is SNS's, not the email path's; the peer's topic has one subscriber.
    const emailPathOnly: Topology = {
      ...topology,
      queues: Object.fromEntries(
        Object.entries(topology.queues).filter(
          ([, queue]) => FULL_TOPOLOGY || queue.consumer === 'notifications',
        ),
      ),
    };
    const provisioned = await provisionTopology(emailPathOnly, { sns, sqs, prefix: `bench-pe-${suffix}-` });
    await ensureDatabase(`${SERVER}/${dbName}`);
    closers.push(() => dropDatabase(`${SERVER}/${dbName}`));
    // The bench database's own statistics (rows written per table, HOT updates): read at the end.
    const own = new pg.Client({ connectionString: `${SERVER}/${dbName}` });
    await own.connect();
    closers.unshift(() => own.end());
    const config = notificationsService.loadConfig({
      DATABASE_URL: `${SERVER}/${dbName}`,
      AWS_ENDPOINT_URL: emulator.endpoint,
      HIREFLOW_TOPOLOGY_PREFIX: provisioned.prefix,
      REDIS_URL: redisServer.url,
      REDIS_PREFIX: `bench:${suffix}`,
      SMTP_URL: smtp.url,
      SMTP_POOL_SIZE: String(POOL),
      EMAIL_CONCURRENCY: String(CONCURRENCY),
      INBOX_CONCURRENCY: String(CONCURRENCY),
      EMAIL_RATE_MAX: '1000000', // the provider's limit is what this measures around
      TENANT_DAILY_EMAIL_QUOTA: '10000000', // every event is of one tenant
      EMAILS_PER_ADDRESS_PER_DAY: '10000000',
      CONTACT_CONFIRMATION_REQUIRED: 'false',
      LOG_LEVEL: 'silent',
      ROLE: 'worker',
    });
    const deps = await connectDeps(config, {
      service: 'notifications',
      migrations: notificationsService.migrations,
      env: {},
      log: createLogger('notifications', 'silent'),
    });
    closers.unshift(() => deps.close());
    const worker: Closeable[] = await startWorker(config, deps);
    closers.unshift(async () => {
      for (const part of worker) await part.close();
    });
    const publisher = new SnsPublisher(sns);
    const arn = provisioned.topics['jobs-events']!.arn;
    const hireflow: Side = {
      name: 'Hireflow (SnsPublisher, SqsConsumer, IdempotentBatcher, BullMQ, email worker)',
      publishBurst: (events) =>
        inBatches(events, async (batch) => {
          // Entries that failed (a connect timeout on the loaded machine) are sent again.
          let left = batch;
          for (let attempt = 0; left.length > 0; attempt++) {
            const result = await publisher.publishBatch(
              arn,
              left.map((event) => ({ event })),
            );
            const failed = new Set(result.failed.map((f) => f.eventId));
            left = left.filter((event) => failed.has(event.id));
            if (left.length > 0 && attempt >= PUBLISH_ATTEMPTS) throw new Error(result.failed[0]!.message);
          }
        }),
      publishOne: (event) => retried(() => publisher.publish(arn, event)),
    };

    // ---- The peer pipeline.
    const peerOptions = { sns, sqs, redisUrl: redisServer.url, smtpUrl: smtp.url, suffix };
    const peerPipeline = await startPeer({ ...peerOptions, label: 'peer', name: PEER_NAME });
    closers.unshift(() => peerPipeline.close());
    const peer: Side = peerPipeline.side;

    // ---- The ceiling: the same peer pipeline with Hireflow's durable writes, in the bench database.
    const durable = await startDurableWrites({
      url: `${SERVER}/${dbName}`,
      suffix,
      poolMax: DB_POOL,
      leaseMs: LEASE_MS,
    });
    closers.unshift(() => durable.drop());
    const ceilingPipeline = await startPeer({ ...peerOptions, label: 'ceil', name: CEILING_NAME, durable });
    closers.unshift(() => ceilingPipeline.close());
    const ceiling: Side = ceilingPipeline.side;

    const tenantId = randomUUID();
    const sides = [hireflow, peer, ceiling];
    // Warm-up: connections, prepared plans, the SMTP pools.
    const writesBefore = await tableWrites(own);
    let hireflowEmails = 0;
    let ceilingEmails = 0;
    const count = (side: Side, emails: number) => {
      if (side === hireflow) hireflowEmails += emails;
      if (side === ceiling) ceilingEmails += emails;
    };
    for (const side of sides) {
      count(side, 50);
      const accepted = acceptedCount(smtp, 50, TIMEOUT_MS);
      await side.publishBurst(Array.from({ length: 50 }, () => candidateRegistered(tenantId)));
      await accepted;
    }

    const costs = new Map(sides.map((s) => [s.name, [] as PhaseCost[]]));
    const latencies = new Map(sides.map((s) => [s.name, [] as number[]]));
    const latencyRounds = new Map(sides.map((s) => [s.name, [] as { p50: number; p99: number }[]]));
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which side goes first: a stall of the shared machine then hits both.
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        count(side, EMAILS);
        const events = Array.from({ length: EMAILS }, () => candidateRegistered(tenantId));
        const accepted = acceptedCount(smtp, EMAILS, TIMEOUT_MS);
        const before = await snapshot(admin, dbName, redisServer);
        const started = performance.now();
        await side.publishBurst(events);
        await accepted;
        const seconds = (performance.now() - started) / 1000;
        const after = await snapshot(admin, dbName, redisServer);
        costs.get(side.name)!.push(costOf(before, after, EMAILS, seconds));
      }
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        count(side, LATENCY_EMAILS);
        const measured = await welcomeLatencies(
          smtp,
          { count: LATENCY_EMAILS, ratePerSecond: LATENCY_RATE_PER_S, tenantId, timeoutMs: TIMEOUT_MS },
          side.publishOne,
        );
        latencies.get(side.name)!.push(...measured);
        latencyRounds.get(side.name)!.push({ p50: percentile(measured, 50), p99: percentile(measured, 99) });
      }
    }
    const keys = smtp.emails.map((e) => e.key);
    const duplicates = keys.length - new Set(keys).size;
    // A backend flushes its counters at most once a second; one that goes idle within a second of
    // its last flush keeps them up to 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): let the last land.
    await delay(11_000);
    const writesAfter = await tableWrites(own);
    const ceilingTable = (table: string) =>
      table.startsWith(durable.prefix) ? table.slice(durable.prefix.length) : undefined;
    printTableWrites(writesBefore, writesAfter, hireflowEmails, {
      title: 'Postgres rows written per Hireflow email, by table',
      table: (table) => (ceilingTable(table) === undefined ? table : undefined),
    });
    printTableWrites(writesBefore, writesAfter, ceilingEmails, {
      title: "Postgres rows written per ceiling email, by table (the ceiling's own tables, prefix left out)",
      table: ceilingTable,
    });
    return report(hireflow.name, peer.name, ceiling.name, costs, latencies, latencyRounds, duplicates);
  } finally {
    for (const close of closers) await close().catch((error) => console.error('close', error));
    await admin.end();
    sns.destroy();
    sqs.destroy();
    await smtp.close();
    await emulator.stop();
    await redisServer.stop();
  }
}

function report(
  ours: string,
  theirs: string,
  ceilingName: string,
  costs: Map<string, PhaseCost[]>,
  latencies: Map<string, number[]>,
  latencyRounds: Map<string, { p50: number; p99: number }[]>,
  duplicates: number,
): BenchReport {
  const per = (xs: number[], digits = 0) => xs.map((x) => round(x, digits)).join(' / ');
  const rows = [ours, theirs, ceilingName].map((name) => {
    const c = costs.get(name)!;
    const pick = (f: (p: PhaseCost) => number) => c.map(f);
    return {
      variant: name,
      'emails/s (median)': round(median(pick((p) => p.emailsPerS)), 0),
      'per round': per(pick((p) => p.emailsPerS)),
      'process CPU ms/email': round(median(pick((p) => p.processCpuMs)), 3),
      'Postgres CPU ms/email': round(median(pick((p) => p.postgresCpuMs)), 3),
      'Redis CPU ms/email': round(median(pick((p) => p.redisCpuMs)), 3),
      'Redis cmds/email': round(median(pick((p) => p.redisCommands)), 1),
      'Redis µs/email (commandstats)': round(median(pick((p) => p.redisUsec)), 0),
      'PG commits/email': round(median(pick((p) => p.commits)), 2),
      'WAL bytes/email (server-wide)': round(median(pick((p) => p.walBytes)), 0),
      'latency p50 ms': round(percentile(latencies.get(name)!, 50), 1),
      'latency p99 ms': round(percentile(latencies.get(name)!, 99), 1),
    };
  });
  const a = costs.get(ours)!;
  const b = costs.get(theirs)!;
  const c = costs.get(ceilingName)!;
  printCommandBreakdown(a, b);
  const throughput = a.map((x, i) => x.emailsPerS / b[i]!.emailsPerS);
  // CPU per email that the machine spends for the path: this process and Postgres (the peer has none).
  const cpu = (p: PhaseCost) => p.processCpuMs + p.postgresCpuMs;
  const cpuRatio = a.map((x, i) => cpu(x) / cpu(b[i]!));
  const withRedis = a.map((x, i) => (cpu(x) + x.redisCpuMs) / (cpu(b[i]!) + b[i]!.redisCpuMs));
  const beside = `peer ${round(median(b.map((x) => x.emailsPerS)), 0)} emails/s`;
  // The ceiling (the peer with Hireflow's durable writes): Hireflow ÷ ceiling is the overhead of
  // Hireflow's implementation, ceiling ÷ peer the price of the writes themselves.
  const throughputToCeiling = a.map((x, i) => x.emailsPerS / c[i]!.emailsPerS);
  const cpuToCeiling = a.map((x, i) => cpu(x) / cpu(c[i]!));
  const ceilingThroughput = c.map((x, i) => x.emailsPerS / b[i]!.emailsPerS);
  const ceilingCpu = c.map((x, i) => cpu(x) / cpu(b[i]!));
  const lat = (name: string, p: 'p50' | 'p99') => latencyRounds.get(name)!.map((r) => r[p]);
  const checks: Check[] = [
    {
      row: 'welcome-email path ÷ peer pipeline (emails/s)',
      values: throughput,
      kind: 'min',
      target: 1.0,
      unit: 'ratio',
      beside,
    },
    {
      row: 'welcome-email path ÷ ceiling: peer + durable writes (emails/s)',
      values: throughputToCeiling,
      kind: 'min',
      target: 1.0,
      unit: 'ratio',
      beside: `ceiling ${round(median(c.map((x) => x.emailsPerS)), 0)} emails/s, ${round(median(ceilingThroughput), 2)} of the peer`,
    },
    {
      row: 'CPU per email (process + Postgres) ÷ peer',
      values: cpuRatio,
      kind: 'max',
      target: 1.0,
      unit: 'ratio',
      beside: `peer ${round(median(b.map(cpu)), 2)} ms/email`,
    },
    {
      row: 'CPU per email (process + Postgres) ÷ ceiling',
      values: cpuToCeiling,
      kind: 'max',
      target: 1.0,
      unit: 'ratio',
      beside: `ceiling ${round(median(c.map(cpu)), 2)} ms/email, ${round(median(ceilingCpu), 2)}× the peer`,
    },
    ...(['p50', 'p99'] as const).map(
      (p): Check => ({
        row: `publish → SMTP accept at ${LATENCY_RATE_PER_S}/s, ${p}, Hireflow ÷ peer`,
        values: lat(ours, p).map((x, i) => x / lat(theirs, p)[i]!),
        kind: 'max',
        target: 1.0,
        unit: 'ratio',
        beside: `peer ${round(median(lat(theirs, p)), 1)} ms`,
      }),
    ),
  ];
  return {
    description:
      `${ROUNDS} rounds, each a ${EMAILS}-event burst per side (alternating first) and ${LATENCY_EMAILS} events at ` +
      `${LATENCY_RATE_PER_S}/s per side; worker concurrency ${CONCURRENCY}, SMTP pool ${POOL}, inbox ${CONCURRENCY}; ` +
      `one process runs the three pipelines, the emulator and the SMTP server; ${FULL_TOPOLOGY ? 'every inbox of the topology' : "notifications' inboxes only"} subscribed. Duplicates seen: ${duplicates}. ` +
      `Per round: ${per(throughput, 2)} (throughput ratio), ${per(cpuRatio, 2)} (CPU ratio). ` +
      `Ceiling (the peer + Hireflow's durable writes, plain pg), interleaved as a third side: ` +
      `Hireflow ÷ ceiling per round ${per(throughputToCeiling, 2)} (throughput), ${per(cpuToCeiling, 2)} (CPU); ` +
      `ceiling ÷ peer ${per(ceilingThroughput, 2)} (throughput), ${per(ceilingCpu, 2)} (CPU).`,
    rows,
    ratios: {
      'welcome-email path ÷ peer (emails/s)': median(throughput),
      'CPU per email, process + Postgres, Hireflow ÷ peer': median(cpuRatio),
      'CPU per email, process + Postgres + Redis, Hireflow ÷ peer': median(withRedis),
      'process CPU per email, Hireflow ÷ peer': median(a.map((x, i) => x.processCpuMs / b[i]!.processCpuMs)),
      'welcome-email path ÷ ceiling (emails/s)': median(throughputToCeiling),
      'CPU per email, process + Postgres, Hireflow ÷ ceiling': median(cpuToCeiling),
      'ceiling ÷ peer (emails/s)': median(ceilingThroughput),
      'CPU per email, process + Postgres, ceiling ÷ peer': median(ceilingCpu),
    },
    checks,
  };
}

/** Redis calls per email by command, median of rounds, each side: where the two differ. */
function printCommandBreakdown(ours: PhaseCost[], theirs: PhaseCost[]): void {
  const commands = new Set([...ours, ...theirs].flatMap((p) => [...p.redisByCommand.keys()]));
  const of = (side: PhaseCost[], command: string) =>
    median(side.map((p) => p.redisByCommand.get(command) ?? 0));
  const rows = [...commands]
    .map((command) => ({ command, hireflow: of(ours, command), peer: of(theirs, command) }))
    .filter((r) => Math.max(r.hireflow, r.peer) >= 0.05)
    .sort((x, y) => Math.abs(y.hireflow - y.peer) - Math.abs(x.hireflow - x.peer))
    .map((r) => ({
      command: r.command,
      'Hireflow /email': round(r.hireflow, 2),
      'peer /email': round(r.peer, 2),
      difference: round(r.hireflow - r.peer, 2),
    }));
  console.log("\nRedis calls per email by command (median of rounds; a script's calls under their command)");
  console.table(rows);
}

// ---------------------------------------------------------------- the peer pipeline

const PEER_NAME = 'peer (PublishBatch, sqs-consumer batch, Powertools on Redis, BullMQ, nodemailer)';
const CEILING_NAME = "ceiling (the peer + Hireflow's durable writes, plain pg: peers-email-ceiling.ts)";

/**
 * The peer pipeline; with `durable`, the ceiling: the same pipeline with
 * Hireflow's Postgres writes (the inbox's in the consumer's batch, committed
 * before its addBulk; the send's claim and record around the SMTP send).
 */
async function startPeer(options: {
  sns: SNSClient;
  sqs: SQSClient;
  redisUrl: string;
  smtpUrl: string;
  suffix: string;
  /** In the names of its topic, queue, BullMQ queue and Powertools keys. */
  label: string;
  name: string;
  durable?: DurableWrites;
}): Promise<{ side: Side; close(): Promise<void> }> {
  const { sns, sqs, suffix, label, durable } = options;
  // Topic → queue, raw delivery (as Hireflow's topology).
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `bench-pe-${suffix}-${label}-events` }));
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: `bench-pe-${suffix}-${label}-inbox`,
      Attributes: { VisibilityTimeout: '30' },
    }),
  );
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  await sns.send(
    new SubscribeCommand({
      TopicArn,
      Protocol: 'sqs',
      Endpoint: Attributes!.QueueArn!,
      Attributes: { RawMessageDelivery: 'true' },
    }),
  );

  // Powertools on Redis, as its docs set it up; a Lambda context whose remaining time is the lease.
  const cache = createClient({ url: options.redisUrl });
  await cache.connect();
  // One persistence layer per idempotent function: each is configured with its function's key path.
  const persistenceOf = () => new CachePersistenceLayer({ client: cache as never });
  const configFor = (path: string) => {
    const config = new IdempotencyConfig({ eventKeyJmesPath: path });
    config.registerLambdaContext({ getRemainingTimeInMillis: () => LEASE_MS } as never);
    return config;
  };

  // BullMQ: one connection for the queue, one the worker opens; jobs kept as Hireflow keeps them.
  const prefix = `bench-pe-${suffix}-${label}`;
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue<WelcomeJob>('welcome', {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: 22,
      backoff: { type: 'exponential', delay: 5000 },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 14 * 24 * 3600, count: 50_000 },
    },
  });

  // Per event, once (Powertools keyed by the event id): what the email needs. The ceiling
  // has it once from its Postgres claim (recordBatch), so no Redis record beside it.
  const decideOnce = async (event: CloudEvent): Promise<WelcomeJob> => {
    if (event.type !== 'candidate.registered.v1') throw new Error(`unexpected ${event.type}`);
    const data = event.data as { candidateId: string; name: string; email: string };
    return { key: idempotencyKey('welcome-email', data.candidateId), to: data.email, name: data.name };
  };
  const decide = durable
    ? decideOnce
    : makeIdempotent(decideOnce, {
        persistenceStore: persistenceOf(),
        config: configFor('id'),
        keyPrefix: `${prefix}-events`,
      });
  const consumer = Consumer.create({
    queueUrl: QueueUrl!,
    sqs,
    batchSize: 10,
    // The long poll sqs-consumer recommends; an empty queue answers when a message arrives.
    waitTimeSeconds: 20,
    handleMessageBatch: async (messages) => {
      const events = messages.map((m) => parseEvent(JSON.parse(m.Body ?? '')) as CloudEvent);
      // The ceiling: the batch's writes committed before its jobs exist (a job finds its intent's row).
      if (durable) await durable.recordBatch(events);
      const jobs = await Promise.all(
        events.map(async (event) => {
          const job = await decide(event);
          return { name: 'welcome', data: job, opts: { jobId: keyDigest(job.key) } };
        }),
      );
      await queue.addBulk(jobs);
      return messages;
    },
  });
  consumer.on('error', (error) => {
    if ((error as { code?: string }).code !== 'AbortError') console.error('sqs-consumer error', error);
  });
  consumer.on('processing_error', (error) => console.error(`${label} processing error`, error));

  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    pool: true,
    maxConnections: POOL,
    maxMessages: 1000,
  });
  // Per send, once (Powertools keyed by the intent key); the ceiling claims and records it in
  // Postgres instead (its claim is what makes a send once: no Redis record beside it).
  const deliver = async (job: WelcomeJob) => {
    const unsubscribeUrl = `${UNSUBSCRIBE_BASE}${randomBytes(48).toString('base64url')}`;
    const content = render('welcome', { name: job.name }, { unsubscribeUrl });
    const info = await transport.sendMail({
      from: FROM,
      to: job.to,
      ...content,
      messageId: messageIdFor(job.key),
      headers: {
        'X-Idempotency-Key': keyDigest(job.key),
        'List-Unsubscribe': `<${unsubscribeUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    return { messageId: info.messageId, response: String(info.response) };
  };
  const send = durable
    ? (job: WelcomeJob) => durable.send(job.key, () => deliver(job))
    : makeIdempotent(deliver, {
        persistenceStore: persistenceOf(),
        config: configFor('key'),
        keyPrefix: `${prefix}-sends`,
      });
  const workerConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker<WelcomeJob>('welcome', (job) => send(job.data), {
    connection: workerConnection,
    prefix,
    concurrency: CONCURRENCY,
  });
  worker.on('failed', (job, error) => console.error(`${label} send failed`, job?.id, error));
  consumer.start();

  const entryOf = (event: CloudEvent, i: number) => ({
    Id: String(i),
    Message: JSON.stringify(event),
    MessageAttributes: { type: { DataType: 'String', StringValue: event.type } },
  });
  return {
    side: {
      name: options.name,
      publishBurst: (events) =>
        inBatches(events, (batch) =>
          retried(() =>
            sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: batch.map(entryOf) })),
          ),
        ),
      publishOne: async (event) => {
        const { MessageAttributes, Message } = entryOf(event, 0);
        await retried(() => sns.send(new PublishCommand({ TopicArn, Message, MessageAttributes })));
      },
    },
    async close() {
      consumer.stop({ abort: true });
      await worker.close();
      transport.close();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      connection.disconnect();
      workerConnection.disconnect();
      cache.destroy();
    },
  };
}

interface WelcomeJob {
  key: string;
  to: string;
  name: string;
}

// ---------------------------------------------------------------- measuring

/**
 * On a machine at load 40 a publish can time out connecting (3 s): both sides
 * send it again. A publish that timed out after all may arrive twice: the
 * same event id, handled once on each side, so the email counts stay exact.
 */
const PUBLISH_ATTEMPTS = 3;

async function retried<T>(publish: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await publish();
    } catch (error) {
      if (attempt >= PUBLISH_ATTEMPTS) throw error;
    }
  }
}

/** Events in batches of 10 (the SNS limit), 4 batches at once. */
async function inBatches(events: CloudEvent[], send: (batch: CloudEvent[]) => Promise<unknown>) {
  const batches: CloudEvent[][] = [];
  for (let i = 0; i < events.length; i += 10) batches.push(events.slice(i, i + 10));
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) await send(batches[next++]!);
    }),
  );
}

interface Snapshot {
  cpu: NodeJS.CpuUsage;
  /** Postgres backend pid → CPU ms, for the bench database. */
  backends: Map<number, number>;
  commits: number;
  walBytes: number;
  redisCpuMs: number;
  redisCalls: number;
  redisUsec: number;
  redisByCommand: Map<string, number>;
}

async function snapshot(admin: pg.Client, dbName: string, redis: LocalRedis): Promise<Snapshot> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    dbName,
  ]);
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = await processCpuMs(pid);
    if (ms !== undefined) backends.set(pid, ms);
  }
  // pg_stat_database is updated by each backend at the end of a transaction (flushed at most once a
  // second, and by an idle backend up to 10 s later: a phase's commits may include the last second of
  // the phase before).
  const stats = await admin.query<{ commits: string }>(
    'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1',
    [dbName],
  );
  const wal = await admin.query<{ bytes: string }>(
    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS bytes",
  );
  const { calls, usec, byCommand } = await redis.commandStats();
  return {
    cpu: process.cpuUsage(),
    backends,
    commits: Number(stats.rows[0]?.commits ?? 0),
    walBytes: Number(wal.rows[0]?.bytes ?? 0),
    redisCpuMs: (await processCpuMs(redis.pid)) ?? 0,
    redisCalls: calls,
    redisUsec: usec,
    redisByCommand: byCommand,
  };
}

function costOf(before: Snapshot, after: Snapshot, emails: number, seconds: number): PhaseCost {
  let postgres = 0;
  // A backend that started during the phase counts from zero.
  for (const [pid, ms] of after.backends) postgres += ms - (before.backends.get(pid) ?? 0);
  return {
    emailsPerS: emails / seconds,
    processCpuMs: (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1000 / emails,
    postgresCpuMs: postgres / emails,
    redisCpuMs: (after.redisCpuMs - before.redisCpuMs) / emails,
    // The INFO call of the snapshot itself is one command.
    redisCommands: (after.redisCalls - before.redisCalls - 1) / emails,
    redisUsec: (after.redisUsec - before.redisUsec) / emails,
    commits: (after.commits - before.commits) / emails,
    walBytes: (after.walBytes - before.walBytes) / emails,
    redisByCommand: new Map(
      [...after.redisByCommand].map(([command, calls]) => [
        command,
        (calls - (before.redisByCommand.get(command) ?? 0) - (command === 'info' ? 1 : 0)) / emails,
      ]),
    ),
  };
}

/** Rows written per table of the bench database (pg_stat_user_tables), cumulative. */
type TableWrites = Map<string, { inserted: number; updated: number; hot: number; deleted: number }>;

async function tableWrites(client: pg.Client): Promise<TableWrites> {
  const { rows } = await client.query<{ table: string; ins: string; upd: string; hot: string; del: string }>(
    `SELECT relname AS table, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del
       FROM pg_stat_user_tables`,
  );
  return new Map(
    rows.map((r) => [
      r.table,
      { inserted: Number(r.ins), updated: Number(r.upd), hot: Number(r.hot), deleted: Number(r.del) },
    ]),
  );
}

/**
 * Rows written per email of one side (Hireflow, or the ceiling in its own
 * tables), per table, over the whole run (warm-up, bursts and latency phases;
 * the peer writes no Postgres row): an update that is not HOT writes a new
 * entry in every index of its table.
 */
function printTableWrites(
  before: TableWrites,
  after: TableWrites,
  emails: number,
  /** `table`: the name to print, undefined to leave the table out. */
  which: { title: string; table: (name: string) => string | undefined },
): void {
  const rows = [...after]
    .flatMap(([name, a]) => {
      const table = which.table(name);
      if (table === undefined) return [];
      const b = before.get(name) ?? { inserted: 0, updated: 0, hot: 0, deleted: 0 };
      return [
        {
          table,
          'inserted /email': round((a.inserted - b.inserted) / emails, 2),
          'updated /email': round((a.updated - b.updated) / emails, 2),
          'of which HOT': round((a.hot - b.hot) / emails, 2),
          'deleted /email': round((a.deleted - b.deleted) / emails, 2),
        },
      ];
    })
    .filter((r) => r['inserted /email'] + r['updated /email'] + r['deleted /email'] > 0)
    .sort((x, y) => x.table.localeCompare(y.table));
  console.log(`\n${which.title} (${emails} emails, pg_stat_user_tables)`);
  console.table(rows);
}

/** utime + stime of a process, in ms (undefined once it is gone). */
async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15.
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- a Redis of the bench's own

interface LocalRedis {
  url: string;
  pid: number;
  commandStats(): Promise<{ calls: number; usec: number; byCommand: Map<string, number> }>;
  stop(): Promise<void>;
}

async function startRedis(): Promise<LocalRedis> {
  const port = await freePort();
  // Persistence off, as the shared Redis of this machine runs.
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true });
  // Refused until the server listens: the loop below retries.
  client.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  while (true) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (error) {
      client.disconnect();
      if (Date.now() > deadline) throw error;
      await delay(50);
    }
  }
  return {
    url,
    pid: child.pid!,
    async commandStats() {
      const text = await client.info('commandstats');
      let calls = 0;
      let usec = 0;
      const byCommand = new Map<string, number>();
      for (const match of text.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) {
        calls += Number(match[2]);
        usec += Number(match[3]);
        byCommand.set(match[1]!, Number(match[2]));
      }
      return { calls, usec, byCommand };
    },
    async stop() {
      client.disconnect();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
