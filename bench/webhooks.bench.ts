// Webhook deliveries (docs/webhooks.md): jobs' delivery worker POSTing to a
// local receiver against plain `fetch` POSTs of the same bodies and headers
// to the same receiver with as many in flight, interleaved in this run; and
// event → receiver latency at 50 events/s (media.failed.v1 published to SNS →
// jobs-inbox → delivery → POST) beside the emulator's own send → receive.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { createEvent, topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { buildApp } from '@hireflow/jobs';
import { issueApiKey } from '@hireflow/jobs/api-keys';
import { jobsService } from '@hireflow/jobs/service';
import { createDeliveries, createDeliveryQueue } from '@hireflow/jobs/webhooks';
import { EndpointAgents, sendWebhook } from '@hireflow/jobs/webhooks/sender';
import { SnsPublisher } from '@hireflow/messaging';
import { provisionTopology } from '@hireflow/ops';
import { type Closeable, connectDeps, createLogger } from '@hireflow/runtime';
import { createSnsClient, createSqsClient } from '@hireflow/runtime/aws';
import { readBody, startLocalServer } from '@hireflow/testing';
import { sqsLatencyBaseline } from './baselines/sqs.ts';
import { type BenchReport, type LatencyRound, median, percentile, round } from './report.ts';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DELIVERIES = Number(process.env.BENCH_WEBHOOK_DELIVERIES ?? 800);
/** Endpoints (one tenant each): endpoints × per-endpoint concurrency = the worker's concurrency. */
const ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 8);
const PER_ENDPOINT = 4;
const IN_FLIGHT = ENDPOINTS * PER_ENDPOINT;
const LATENCY_RATE_PER_S = 50;
const LATENCY_EVENTS = 200;
const TIMEOUT_MS = 120_000;

interface Arrival {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A receiver that answers 204 at once and keeps what came (the part of a real one this measures around). */
async function startBenchReceiver() {
  const arrivals: Arrival[] = [];
  const server = await startLocalServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const pick = (name: string) => String(req.headers[name] ?? '');
    arrivals.push({
      path: req.url ?? '/',
      headers: Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, pick(h)]),
      ),
      body,
      at: performance.timeOrigin + performance.now(),
    });
    res.writeHead(204).end();
  });
  return { url: server.url, arrivals, close: server.close };
}

const uploadIdOf = (body: string) => (JSON.parse(body) as { data: { uploadId: string } }).data.uploadId;

async function arrived(arrivals: Arrival[], count: number): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (arrivals.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${arrivals.length} of ${count} deliveries arrived`);
    await delay(2);
  }
}

/** Sends every request with `IN_FLIGHT` at once; requests/s. */
async function inFlight(requests: Arrival[], send: (request: Arrival) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < requests.length) await send(requests[next++]!);
    }),
  );
  return requests.length / ((performance.now() - started) / 1000);
}

/**
 * The design's ceiling in this process: the worker's own sender (node:http
 * through the endpoints' kept-alive agents, the checked lookup) POSTing the
 * same requests, `IN_FLIGHT` at once, with no claim and no record; requests/s.
 */
async function senderAlone(base: string, requests: Arrival[]): Promise<number> {
  const policy = { allowHttp: true, allowPrivate: true };
  const pool = new EndpointAgents(policy, PER_ENDPOINT);
  const perSecond = await inFlight(requests, (request) =>
    sendWebhook(
      `${base}${request.path}`,
      request.headers,
      request.body,
      { ...policy, timeoutMs: TIMEOUT_MS },
      { pool, endpointId: request.path },
    ),
  );
  pool.close();
  return perSecond;
}

/** Baseline: `fetch` POSTs of the given requests, `IN_FLIGHT` at once; requests/s. */
function plainFetch(base: string, requests: Arrival[]): Promise<number> {
  return inFlight(requests, async (request) => {
    const response = await fetch(`${base}${request.path}`, {
      method: 'POST',
      headers: { ...request.headers, 'content-type': 'application/json' },
      body: request.body,
    });
    await response.arrayBuffer();
  });
}

export default async function webhooksBench(): Promise<BenchReport> {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `hfbench_webhooks_${suffix}`;
  const emulator = await startEmulator({ region: REGION });
  const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
  const sns = createSnsClient(aws);
  const sqs = createSqsClient(aws);
  const provisioned = await provisionTopology(topology, { sns, sqs, prefix: `bench-${suffix}-` });
  await ensureDatabase(`${SERVER}/${dbName}`);
  const config = jobsService.loadConfig({
    DATABASE_URL: `${SERVER}/${dbName}`,
    AWS_ENDPOINT_URL: emulator.endpoint,
    AWS_REGION: REGION,
    HIREFLOW_TOPOLOGY_PREFIX: provisioned.prefix,
    REDIS_PREFIX: `bench:${suffix}`,
    ROLE: 'worker',
    LOG_LEVEL: 'silent',
    PORT: '0',
    RATE_LIMIT_MAX: '1000000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
    WEBHOOK_WORKER_CONCURRENCY: String(IN_FLIGHT),
  });
  const deps = await connectDeps(config, {
    service: 'jobs',
    migrations: jobsService.migrations,
    env: {},
    log: createLogger('jobs', 'silent'),
  });
  const receiver = await startBenchReceiver();
  // The public API's routes (POST /v1/webhooks) come with the api role.
  const app = await buildApp({ ...config, ROLE: 'api' }, deps);
  const queue = createDeliveryQueue({ orm: deps.orm });
  const publisher = new SnsPublisher(sns);
  const arn = provisioned.topics['media-events']!.arn;
  let worker: Closeable[] = [];
  /** The webhook-ids the delivery worker sent (the baseline re-sends the same requests). */
  const pipelineIds: string[] = [];

  // One tenant per endpoint, each subscribed to upload.failed.
  const tenants: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const issued = await issueApiKey(deps.orm.em.fork(), `bench-${suffix}-${i}`, `bench${i}@example.test`);
    const created = await app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { authorization: `Bearer ${issued.key}` },
      payload: { url: `${receiver.url}/hook/${i}`, events: ['upload.failed'] },
    });
    if (created.statusCode !== 201)
      throw new Error(`POST /v1/webhooks: ${created.statusCode} ${created.body}`);
    tenants.push(issued.tenantId);
  }
  const failedUpload = (i: number) =>
    createEvent(
      'media.failed.v1',
      { uploadId: randomUUID(), tenantId: tenants[i % tenants.length]!, reason: 'unreadable image' },
      { source: 'hireflow/media' },
    );

  /**
   * Deliveries made as the inbox makes them (not timed), in one transaction:
   * they become due together at its commit (the table is the workers' queue);
   * timed from just before that commit until the last arrives.
   */
  const pipeline = async (count: number): Promise<{ perSecond: number; requests: Arrival[] }> => {
    const ids: string[] = [];
    const from = receiver.arrivals.length;
    let started = 0;
    await deps.orm.em.fork().transactional(async (em) => {
      for (let i = 0; i < count; i++) ids.push(...(await createDeliveries(em, failedUpload(i))));
      started = performance.now();
    });
    const done = arrived(receiver.arrivals, from + count);
    await queue.add(ids);
    await done;
    const perSecond = count / ((performance.now() - started) / 1000);
    const requests = receiver.arrivals.slice(from, from + count);
    pipelineIds.push(...requests.map((r) => r.headers['webhook-id']!));
    return { perSecond, requests };
  };

  /**
   * Publish → receiver arrival of each delivery, one event every 20 ms, split
   * at the delivery row's created_at: publish → row (SNS, jobs-inbox, the
   * handler's transaction) and row → arrival (wake, claim, POST).
   */
  const latency = async (): Promise<{ total: number[]; inbox: number[]; delivery: number[] }> => {
    const publishedAt = new Map<string, number>();
    const from = receiver.arrivals.length;
    const done = arrived(receiver.arrivals, from + LATENCY_EVENTS);
    const interval = 1000 / LATENCY_RATE_PER_S;
    const started = performance.now();
    const publishes: Promise<unknown>[] = [];
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const wait = started + i * interval - performance.now();
      if (wait > 1) await delay(wait);
      const event = failedUpload(i);
      publishedAt.set(event.data.uploadId, performance.timeOrigin + performance.now());
      publishes.push(publisher.publish(arn, event));
    }
    await Promise.all(publishes);
    await done;
    const created = new Map(
      (
        await deps.orm.em
          .fork()
          .execute<{ body: string; created_at: Date }[]>(
            `SELECT body, created_at FROM webhook_delivery ORDER BY created_at DESC LIMIT ${LATENCY_EVENTS}`,
          )
      ).map((r) => [uploadIdOf(r.body), new Date(r.created_at).getTime()]),
    );
    const total: number[] = [];
    const inbox: number[] = [];
    const delivery: number[] = [];
    for (const a of receiver.arrivals.slice(from)) {
      const uploadId = uploadIdOf(a.body);
      const published = publishedAt.get(uploadId)!;
      total.push(a.at - published);
      const at = created.get(uploadId);
      if (at !== undefined) {
        inbox.push(at - published);
        delivery.push(a.at - at);
      }
    }
    return { total, inbox, delivery };
  };

  const pipelineRuns: number[] = [];
  const fetchRuns: number[] = [];
  const senderRuns: number[] = [];
  const latencies: number[] = [];
  const inboxShare: number[] = [];
  const deliveryShare: number[] = [];
  const latencyRounds: LatencyRound[] = [];
  const { QueueUrl: latencyQueue } = await sqs.send(
    new CreateQueueCommand({ QueueName: `bench-${suffix}-latency` }),
  );
  try {
    worker = await jobsService.startWorker!(config, deps);
    // Warm-up: connections, prepared plans, both paths.
    const warm = await pipeline(4 * ENDPOINTS);
    await plainFetch(receiver.url, warm.requests);
    await senderAlone(receiver.url, warm.requests);
    for (let r = 0; r < ROUNDS; r++) {
      const run = await pipeline(DELIVERIES);
      pipelineRuns.push(run.perSecond);
      fetchRuns.push(await plainFetch(receiver.url, run.requests));
      senderRuns.push(await senderAlone(receiver.url, run.requests));
      const { total: measured, inbox, delivery } = await latency();
      inboxShare.push(...inbox);
      deliveryShare.push(...delivery);
      const sqsOwn = await sqsLatencyBaseline(sqs, latencyQueue!, {
        ratePerSecond: LATENCY_RATE_PER_S,
        messages: LATENCY_EVENTS,
      });
      latencies.push(...measured);
      latencyRounds.push({
        p50: percentile(measured, 50),
        p99: percentile(measured, 99),
        sqsP50: percentile(sqsOwn, 50),
        sqsP99: percentile(sqsOwn, 99),
      });
    }
  } finally {
    for (const part of worker) await part.close();
    await app.close();
    const stale = await deps.redis.keys(`${config.REDIS_PREFIX}:*`);
    if (stale.length > 0) await deps.redis.del(...stale);
    await deps.close();
    sns.destroy();
    sqs.destroy();
    await receiver.close();
    await emulator.stop();
    await dropDatabase(`${SERVER}/${dbName}`);
  }

  const ids = pipelineIds;
  const duplicates = ids.length - new Set(ids).size;
  const per = (xs: number[]) => xs.map((x) => round(x, 0)).join(' / ');
  const ratios = pipelineRuns.map((p, i) => p / fetchRuns[i]!);
  const ceilings = senderRuns.map((s, i) => s / fetchRuns[i]!);
  const blank = { 'per round': '', 'p50 ms': '', 'p99 ms': '' };
  return {
    description:
      `${ROUNDS} interleaved rounds against Postgres, Redis and an in-process receiver answering 204 at once; ` +
      `${ENDPOINTS} endpoints × ${PER_ENDPOINT} slots = ${IN_FLIGHT} in flight on both paths, ${DELIVERIES} deliveries a round; ` +
      `webhook-ids the worker sent twice: ${duplicates}.`,
    rows: [
      {
        variant: `baseline: fetch POST of the same requests, ${IN_FLIGHT} in flight (keep-alive)`,
        'per second (median)': round(median(fetchRuns), 0),
        ...blank,
        'per round': per(fetchRuns),
      },
      {
        variant: `ceiling: the worker's sender alone (node:http, kept-alive agents), same requests, no claim or record`,
        'per second (median)': round(median(senderRuns), 0),
        ...blank,
        'per round': per(senderRuns),
      },
      {
        variant: `delivery worker: claim (rows, slots) → sign → POST (kept-alive connection) → attempt recorded`,
        'per second (median)': round(median(pipelineRuns), 0),
        ...blank,
        'per round': per(pipelineRuns),
      },
      {
        variant: `latency at ${LATENCY_RATE_PER_S} events/s: publish → SNS → jobs-inbox → delivery → receiver`,
        'per second (median)': '',
        ...blank,
        'p50 ms': round(percentile(latencies, 50), 1),
        'p99 ms': round(percentile(latencies, 99), 1),
      },
      {
        variant: '  of which publish → delivery row committed (SNS, jobs-inbox, handler)',
        'per second (median)': '',
        ...blank,
        'p50 ms': round(percentile(inboxShare, 50), 1),
        'p99 ms': round(percentile(inboxShare, 99), 1),
      },
      {
        variant: '  of which delivery row → receiver (wake, claim, POST)',
        'per second (median)': '',
        ...blank,
        'p50 ms': round(percentile(deliveryShare, 50), 1),
        'p99 ms': round(percentile(deliveryShare, 99), 1),
      },
      {
        variant: `baseline latency at ${LATENCY_RATE_PER_S} msg/s: fauxqs SendMessage → ReceiveMessage (long poll)`,
        'per second (median)': '',
        ...blank,
        'p50 ms': round(median(latencyRounds.map((r) => r.sqsP50)), 1),
        'p99 ms': round(median(latencyRounds.map((r) => r.sqsP99)), 1),
      },
    ],
    ratios: {
      'deliveries/s ÷ fetch POSTs/s (median)': median(ratios),
      'ceiling: sender alone ÷ fetch POSTs/s (median)': median(ceilings),
    },
    checks: [
      {
        row: 'webhook deliveries ÷ fetch POSTs of the same requests',
        values: ratios,
        kind: 'min',
        target: 0.7,
        unit: 'ratio',
        beside: `fetch ${round(median(fetchRuns), 0)} POSTs/s`,
      },
    ],
  };
}
