import type { CloudEvent, EventType } from '@hireflow/contracts';
import { topicOf } from '@hireflow/contracts';
import { buildAdmin } from '@hireflow/matching';
import { type Config, loadConfig } from '@hireflow/matching/config';
import { SnsPublisher, SqsConsumer } from '@hireflow/messaging';
import { HandlerSpy } from '@hireflow/messaging/testing';
import type { ProvisionedTopology } from '@hireflow/ops';
import { type Closeable, connectDeps, createLogger, type ServiceDeps } from '@hireflow/runtime';
import {
  createTestDatabase,
  type TestDatabase,
  testAws,
  testTopology,
  uniqueName,
  waitFor,
} from '@hireflow/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, inject } from 'vitest';
import { migrations } from '../src/db/schema.ts';
import { createMatchQueue } from '../src/modules/matches/queue.ts';
import type { Computation } from '../src/modules/matches/service.ts';
import { startWorker, type WorkerHooks } from '../src/worker.ts';

export interface MatchingHarness {
  db: TestDatabase;
  topology: ProvisionedTopology;
  config: Config;
  deps: ServiceDeps;
  /** The admin listener (internal routes), not listening: use `inject()`. */
  admin: FastifyInstance;
  /** Every inbox message outcome of the in-process workers. */
  spy: HandlerSpy;
  /** Every computation the in-process workers finished, in order. */
  computations: Computation[];
  /** What matching published, as the jobs inbox of this test receives it. */
  published: { spy: HandlerSpy; events: CloudEvent[] };
  /** Starts one more worker role in this process (its own in-memory indexes, as a second process has). */
  startWorker(hooks?: Pick<WorkerHooks, 'embedder'>): Promise<void>;
  stopWorkers(): Promise<void>;
  publish(event: CloudEvent): Promise<void>;
  /** Waits until `count` computations matching `match` have finished. */
  waitForComputations(match: Partial<Computation>, count?: number): Promise<Computation[]>;
  /** Events matching published (match.found.v1, job.matched.v1) about one posting, in arrival order. */
  eventsAbout(postingId: string): CloudEvent[];
  /** Outbox rows written for one posting, by type. */
  outboxAbout(postingId: string): Promise<{ type: string; payload: CloudEvent }[]>;
  close(): Promise<void>;
}

/**
 * A matching service of the test's own: database, topology prefix and Redis
 * prefix, its admin app built, workers started on demand in this process,
 * and a consumer on the test's jobs inbox that sees what matching publishes.
 */
export async function startMatchingHarness(
  label: string,
  env: Record<string, string> = {},
): Promise<MatchingHarness> {
  const db = await createTestDatabase(label);
  const aws = testAws();
  const topology = await testTopology(aws, label);
  aws.close();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    AWS_ENDPOINT_URL: inject('awsEndpoint'),
    HIREFLOW_TOPOLOGY_PREFIX: topology.prefix,
    REDIS_PREFIX: `test:${uniqueName(label)}`,
    ...env,
  });
  const deps = await connectDeps(config, {
    service: 'matching',
    migrations,
    env: {},
    log: createLogger('matching', config.LOG_LEVEL),
  });
  const admin = await buildAdmin(config, deps);
  const publisher = new SnsPublisher(deps.sns);
  const spy = new HandlerSpy();
  const computations: Computation[] = [];
  const published = { spy: new HandlerSpy(), events: [] as CloudEvent[] };
  const record = (event: CloudEvent) => {
    published.events.push(event);
  };
  // jobs' inbox, both lanes: what a bulk computation announces goes to the bulk one (docs/fairness.md).
  const observers = ['jobs-inbox', 'jobs-inbox-bulk'].map(
    (queue) =>
      new SqsConsumer({
        sqs: deps.sqs,
        queue: topology.queues[queue]!,
        handlers: { 'match.found.v1': record, 'job.matched.v1': record },
        waitTimeSeconds: 1,
        onMessage: published.spy.observer,
      }),
  );
  for (const observer of observers) await observer.start();
  const workers: Closeable[][] = [];
  const arnOf = (type: EventType) => topology.topics[topicOf(type)]!.arn;
  const stopWorkers = async () => {
    for (const parts of workers.splice(0)) for (const part of parts) await part.close();
  };
  const matches = (c: Computation, match: Partial<Computation>) =>
    Object.entries(match).every(([key, value]) => c[key as keyof Computation] === value);

  return {
    db,
    topology,
    config,
    deps,
    admin,
    spy,
    computations,
    published,
    startWorker: async (hooks = {}) => {
      workers.push(
        await startWorker(config, deps, {
          ...hooks,
          onMessage: spy.observer,
          onComputed: (c) => computations.push(c),
        }),
      );
    },
    stopWorkers,
    publish: async (event) => {
      await publisher.publish(arnOf(event.type), event);
    },
    waitForComputations: (match, count = 1) =>
      waitFor(
        () => {
          const found = computations.filter((c) => matches(c, match));
          return found.length >= count ? found : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 20, message: `${count} × ${JSON.stringify(match)}` },
      ),
    eventsAbout: (postingId) =>
      published.events.filter((e) => (e.data as { jobId?: string }).jobId === postingId),
    outboxAbout: (postingId) =>
      deps.orm.em
        .fork()
        .execute<{ type: string; payload: CloudEvent }[]>(
          "SELECT type, payload FROM outbox WHERE payload->'data'->>'jobId' = ? ORDER BY id",
          [postingId],
        ),
    close: async () => {
      await stopWorkers();
      for (const observer of observers) await observer.close();
      const queue = createMatchQueue({ connection: deps.redis, prefix: config.REDIS_PREFIX, attempts: 1 });
      await queue.tasks.queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await admin.close();
      await deps.close();
      await db.drop();
    },
  };
}

/** The harness of one test file, with one worker started, closed after its tests. */
export function useMatchingHarness(label: string, env: Record<string, string> = {}): MatchingHarness {
  let current: MatchingHarness | undefined;
  beforeAll(async () => {
    current = await startMatchingHarness(label, env);
    await current.startWorker();
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as MatchingHarness, {
    get(_target, property) {
      if (!current) throw new Error('the harness starts in beforeAll: use it in tests and hooks');
      return current[property as keyof MatchingHarness];
    },
  });
}
