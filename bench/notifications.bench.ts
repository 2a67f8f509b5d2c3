// Emails through the whole notifications path (candidate.registered.v1 →
// SNS → SQS → handler → BullMQ → SMTP accept) next to nodemailer sending the
// same emails straight to the same SMTP server, interleaved in one run, plus
// event → SMTP-accept latency at a steady rate and the width of the one
// duplicate window (SMTP accept → notification log write committed).
import { randomBytes, randomUUID } from 'node:crypto';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { type CloudEvent, topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { SnsPublisher } from '@hireflow/messaging';
import { createMailer, render, type SentEmail } from '@hireflow/notifications/email';
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
import { candidateRegistered } from '@hireflow/testing/events';
import { keyDigest, type SmtpCatcher, startSmtpCatcher } from '@hireflow/testing/smtp';
import { sqsLatencyBaseline } from './baselines/sqs.ts';
import { acceptedCount, welcomeLatencies } from './email-latency.ts';
import { type BenchReport, type LatencyRound, latencyChecks, median, percentile, round } from './report.ts';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const THROUGHPUT_EMAILS = Number(process.env.BENCH_EMAILS ?? 600);
const LATENCY_RATE_PER_S = 50;
const LATENCY_EMAILS = 200;
const CONCURRENCY = 10;
const POOL = 5;
const TIMEOUT_MS = 120_000;

/** nodemailer straight to the SMTP server, as many in flight as the worker runs. */
async function direct(smtp: SmtpCatcher, count: number): Promise<number> {
  const mailer = createMailer({
    url: smtp.url,
    from: 'bench@hireflow.local',
    poolSize: POOL,
    timeoutMs: 30_000,
  });
  const content = render('welcome', { name: 'Ada Lovelace' });
  try {
    await mailer.send({ key: `warm:${randomUUID()}`, to: 'warm@example.test', ...content });
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          next += 1;
          await mailer.send({ key: `direct:${randomUUID()}`, to: 'ada@example.test', ...content });
        }
      }),
    );
    return count / ((performance.now() - started) / 1000);
  } finally {
    mailer.close();
  }
}

export default async function notificationsBench(): Promise<BenchReport> {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `hfbench_notifications_${suffix}`;
  const emulator = await startEmulator({ region: REGION });
  const smtp = await startSmtpCatcher({ parse: false });
  const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
  const sns = createSnsClient(aws);
  const sqs = createSqsClient(aws);
  const provisioned = await provisionTopology(topology, { sns, sqs, prefix: `bench-${suffix}-` });
  await ensureDatabase(`${SERVER}/${dbName}`);
  const config = notificationsService.loadConfig({
    DATABASE_URL: `${SERVER}/${dbName}`,
    AWS_ENDPOINT_URL: emulator.endpoint,
    HIREFLOW_TOPOLOGY_PREFIX: provisioned.prefix,
    REDIS_PREFIX: `bench:${suffix}`,
    SMTP_URL: smtp.url,
    SMTP_POOL_SIZE: String(POOL),
    // The worker's Postgres pool (default 10); BENCH_DB_POOL tries others.
    ...(process.env.BENCH_DB_POOL ? { DATABASE_POOL_MAX: process.env.BENCH_DB_POOL } : {}),
    EMAIL_CONCURRENCY: String(CONCURRENCY),
    EMAIL_RATE_MAX: '1000000', // the provider limit is what this measures around
    TENANT_DAILY_EMAIL_QUOTA: '10000000', // every event is of one tenant
    EMAILS_PER_ADDRESS_PER_DAY: '10000000',
    CONTACT_CONFIRMATION_REQUIRED: 'false', // every posting names an address of its own
    LOG_LEVEL: 'silent',
    ROLE: 'worker',
  });
  const deps = await connectDeps(config, {
    service: 'notifications',
    migrations: notificationsService.migrations,
    env: {},
    log: createLogger('notifications', 'silent'),
  });
  const sent: SentEmail[] = [];
  let worker: Closeable[] = [];
  const publisher = new SnsPublisher(sns);
  const arn = provisioned.topics['jobs-events']!.arn;
  const tenantId = randomUUID();

  const publishBurst = async (events: CloudEvent[]) => {
    const batches: CloudEvent[][] = [];
    for (let i = 0; i < events.length; i += 10) batches.push(events.slice(i, i + 10));
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < batches.length) {
          const batch = batches[next++]!;
          await publisher.publishBatch(
            arn,
            batch.map((event) => ({ event })),
          );
        }
      }),
    );
  };

  /** Publish time → SMTP accept time of each email, at a steady rate. */
  const latency = (): Promise<number[]> =>
    welcomeLatencies(
      smtp,
      { count: LATENCY_EMAILS, ratePerSecond: LATENCY_RATE_PER_S, tenantId, timeoutMs: TIMEOUT_MS },
      (event) => publisher.publish(arn, event),
    );

  const directRuns: number[] = [];
  const pipelineRuns: number[] = [];
  const latencies: number[] = [];
  const latencyRounds: LatencyRound[] = [];
  const steadySent: SentEmail[] = [];
  // What this one process spent per email (it runs every part: publisher, emulator, consumer, worker, SMTP server).
  const directLoad: { elu: number; cpuMs: number }[] = [];
  const burstLoad: { elu: number; cpuMs: number }[] = [];
  // The emulator's own send → receive latency, at the same rate, on a queue of its own.
  const { QueueUrl: latencyQueue } = await sqs.send(
    new CreateQueueCommand({ QueueName: `bench-${suffix}-latency` }),
  );
  try {
    worker = await startWorker(config, deps, { onSent: (s) => sent.push(s) });
    // Warm-up: connections, prepared plans, the SMTP pool.
    await publishBurst(Array.from({ length: 50 }, () => candidateRegistered(tenantId)));
    await acceptedCount(smtp, 50, TIMEOUT_MS);
    for (let r = 0; r < ROUNDS; r++) {
      const directElu0 = performance.eventLoopUtilization();
      const directCpu0 = process.cpuUsage();
      directRuns.push(await direct(smtp, THROUGHPUT_EMAILS));
      directLoad.push(cpuPerEmail(directCpu0, directElu0, THROUGHPUT_EMAILS));
      const events = Array.from({ length: THROUGHPUT_EMAILS }, () => candidateRegistered(tenantId));
      const accepted = acceptedCount(smtp, THROUGHPUT_EMAILS, TIMEOUT_MS);
      const started = performance.now();
      const elu0 = performance.eventLoopUtilization();
      const cpu0 = process.cpuUsage();
      await publishBurst(events);
      await accepted;
      burstLoad.push(cpuPerEmail(cpu0, elu0, THROUGHPUT_EMAILS));
      pipelineRuns.push(THROUGHPUT_EMAILS / ((performance.now() - started) / 1000));
      const from = sent.length;
      const measured = await latency();
      const emulator = await sqsLatencyBaseline(sqs, latencyQueue!, {
        ratePerSecond: LATENCY_RATE_PER_S,
        messages: LATENCY_EMAILS,
      });
      latencies.push(...measured);
      latencyRounds.push({
        p50: percentile(measured, 50),
        p99: percentile(measured, 99),
        sqsP50: percentile(emulator, 50),
        sqsP99: percentile(emulator, 99),
      });
      steadySent.push(...sent.slice(from));
    }
  } finally {
    for (const part of worker) await part.close();
    // The queue's jobs (completed ones are kept a day) go with the run.
    const stale = await deps.redis.keys(`${config.REDIS_PREFIX}:*`);
    if (stale.length > 0) await deps.redis.del(...stale);
    await deps.close();
    sns.destroy();
    sqs.destroy();
    await smtp.close();
    await emulator.stop();
    await dropDatabase(`${SERVER}/${dbName}`);
  }

  const acceptedAt = new Map(smtp.emails.map((e) => [e.key, e.acceptedAt]));
  // From the server's 250 to the log UPDATE's commit; the client sees nodemailer resolve a little later.
  const window = (list: SentEmail[]) =>
    list.map((s) => s.loggedAt - (acceptedAt.get(keyDigest(s.key)) ?? s.acceptedAt));
  const steady = new Set(steadySent.map((s) => s.key));
  const burstWindow = window(sent.filter((s) => !steady.has(s.key)));
  const steadyWindow = window(steadySent);
  const clientWindow = sent.map((s) => s.loggedAt - s.acceptedAt);
  const keys = smtp.emails.map((e) => e.key);
  const duplicates = keys.length - new Set(keys).size;
  const best = (xs: number[]) => Math.max(...xs);
  const per = (xs: number[]) => xs.map((x) => round(x, 0)).join(' / ');
  const rows = [
    {
      variant: `baseline: nodemailer → SMTP, ${CONCURRENCY} in flight, pool ${POOL}`,
      'emails/s (best)': round(best(directRuns), 0),
      'per round': per(directRuns),
      'p50 ms': '',
      'p99 ms': '',
    },
    {
      variant: `event → SNS → SQS → handler → BullMQ → SMTP accept (${THROUGHPUT_EMAILS}-event bursts)`,
      'emails/s (best)': round(best(pipelineRuns), 0),
      'per round': per(pipelineRuns),
      'p50 ms': '',
      'p99 ms': '',
    },
    {
      variant: 'process CPU per email (ms), event loop busy: nodemailer direct; pipeline',
      'emails/s (best)': '',
      'per round': [directLoad, burstLoad]
        .map((load) => load.map((l) => `${round(l.cpuMs, 2)} (${round(l.elu * 100, 0)} %)`).join(' / '))
        .join(' ; '),
      'p50 ms': '',
      'p99 ms': '',
    },
    {
      variant: `latency at ${LATENCY_RATE_PER_S} events/s: publish → SMTP accept`,
      'emails/s (best)': '',
      'per round': '',
      'p50 ms': round(percentile(latencies, 50), 1),
      'p99 ms': round(percentile(latencies, 99), 1),
    },
    {
      variant: `duplicate window at ${LATENCY_RATE_PER_S} events/s: SMTP 250 given → log write committed`,
      'emails/s (best)': '',
      'per round': '',
      'p50 ms': round(percentile(steadyWindow, 50), 2),
      'p99 ms': round(percentile(steadyWindow, 99), 2),
    },
    {
      variant: 'same during the bursts (saturated: DB pool and event loop shared)',
      'emails/s (best)': '',
      'per round': '',
      'p50 ms': round(percentile(burstWindow, 50), 2),
      'p99 ms': round(percentile(burstWindow, 99), 2),
    },
    {
      variant: 'all emails, seen by the client: nodemailer resolved → committed',
      'emails/s (best)': '',
      'per round': '',
      'p50 ms': round(percentile(clientWindow, 50), 2),
      'p99 ms': round(percentile(clientWindow, 99), 2),
    },
    {
      variant: `baseline latency at ${LATENCY_RATE_PER_S} msg/s: fauxqs SendMessage → ReceiveMessage (long poll)`,
      'emails/s (best)': '',
      'per round': '',
      'p50 ms': round(median(latencyRounds.map((r) => r.sqsP50)), 1),
      'p99 ms': round(median(latencyRounds.map((r) => r.sqsP99)), 1),
    },
  ];
  return {
    checks: [
      {
        row: 'email pipeline ÷ nodemailer direct to the same SMTP server',
        values: pipelineRuns.map((p, i) => p / directRuns[i]!),
        kind: 'min',
        target: 0.7,
        unit: 'ratio',
        beside: `nodemailer ${round(median(directRuns), 0)} emails/s`,
      },
      ...latencyChecks(`publish → SMTP accept at ${LATENCY_RATE_PER_S}/s`, latencyRounds, {
        p50: 26,
        p99: 56,
      }),
    ],
    description:
      `${ROUNDS} interleaved rounds, emulator + Postgres + Redis + an in-process SMTP server (no parsing); ` +
      `worker concurrency ${CONCURRENCY}, SMTP pool ${POOL}, no rate limit; duplicates seen: ${duplicates}.`,
    rows,
    ratios: { 'emails/s pipeline ÷ nodemailer direct': best(pipelineRuns) / best(directRuns) },
  };
}

/** Process CPU (all threads) per email and the main thread's event-loop utilisation since the marks. */
function cpuPerEmail(
  cpu0: NodeJS.CpuUsage,
  elu0: ReturnType<typeof performance.eventLoopUtilization>,
  emails: number,
): { elu: number; cpuMs: number } {
  const cpu = process.cpuUsage(cpu0);
  return {
    elu: performance.eventLoopUtilization(elu0).utilization,
    cpuMs: (cpu.user + cpu.system) / 1000 / emails,
  };
}
