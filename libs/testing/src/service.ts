import type { ConsumerName } from '@hireflow/contracts';
import type { SqlMigration } from '@hireflow/db';
import type { ProvisionedTopology } from '@hireflow/ops';
import { connectDeps, createLogger, type ServiceConfig, type ServiceDeps } from '@hireflow/runtime';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { uniqueName } from './names.ts';
import { testAws, testTopology } from './topology.ts';

/**
 * The checks every service's `buildApp` must pass, against real Postgres,
 * Redis and the emulator with the test's own database and topology prefix:
 * health through `inject()`, readiness failing when a dependency is missing.
 */

/**
 * A service under test sheds no load: test files run side by side on two
 * cores, and an event loop delay past the production threshold (1 s) there
 * is the machine's, not the service's. Load shedding has tests of its own
 * that set the threshold low.
 */
const UNDER_TEST = { LOAD_SHED_EVENT_LOOP_DELAY_MS: '60000' };

export function serviceAppHarness<C extends ServiceConfig>(options: {
  service: ConsumerName;
  loadConfig(env: Record<string, string | undefined>): C;
  buildApp(config: C, deps: ServiceDeps, state?: { accepting: () => boolean }): Promise<FastifyInstance>;
}): void {
  let db: TestDatabase;
  let deps: ServiceDeps;
  let app: FastifyInstance;
  let accepting = true;
  const log = createLogger(options.service, 'silent');
  const env = (prefix: string) => ({
    DATABASE_URL: db.url,
    AWS_ENDPOINT_URL: inject('awsEndpoint'),
    HIREFLOW_TOPOLOGY_PREFIX: prefix,
    REDIS_PREFIX: `test:${uniqueName(options.service)}`,
    LOG_LEVEL: 'silent',
    ...UNDER_TEST,
  });

  beforeAll(async () => {
    db = await createTestDatabase(options.service);
    const aws = testAws();
    const provisioned = await testTopology(aws, options.service);
    aws.close();
    const config = options.loadConfig(env(provisioned.prefix));
    deps = await connectDeps(config, {
      service: options.service,
      migrations: [],
      env: {},
      log,
    });
    app = await options.buildApp(config, deps, { accepting: () => accepting });
  });

  afterAll(async () => {
    await app?.close();
    await deps?.close();
    await db?.drop();
  });

  it('answers /health/live', async () => {
    const res = await app.inject({ method: 'GET', url: '/health/live' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers /health/ready with every dependency ok', async () => {
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', sqs: 'ok' } });
    expect(res.statusCode).toBe(200);
  });

  it('is not ready while shutting down', async () => {
    accepting = false;
    try {
      const res = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json().status).toBe('shutting down');
    } finally {
      accepting = true;
    }
  });

  it('is not ready when its SQS inbox does not exist, and says which check failed', async () => {
    const unprovisioned = options.loadConfig(env(`${uniqueName('missing')}-`));
    const lonely = await connectDeps(unprovisioned, {
      service: options.service,
      migrations: [],
      env: {},
      log,
    });
    const other = await options.buildApp(unprovisioned, lonely);
    try {
      const res = await other.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      const body = res.json();
      expect(body.checks.postgres).toBe('ok');
      expect(body.checks.sqs).toBe('error');
    } finally {
      await other.close();
      await lonely.close();
    }
  });

  it("API5 broken function level authorization: no internal or admin route in the service port's route table", () => {
    const paths = app
      .printRoutes({ commonPrefix: false })
      .split('\n')
      .map((line) => /(\/\S*)/.exec(line)?.[1])
      .filter((path): path is string => path !== undefined);
    expect(paths).toContain('/health/ready');
    expect(paths.filter((path) => /^\/(internal|metrics|admin)/.test(path))).toEqual([]);
  });

  it('serves nothing internal or administrative on the service port', async () => {
    for (const url of ['/internal/notifications?recipient=a@example.test', '/metrics', '/admin/queues']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });

  it('answers unknown routes with problem+json', async () => {
    const res = await app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', title: 'Not Found' });
  });
}

export interface ServiceUnderTest<C extends ServiceConfig> {
  db: TestDatabase;
  topology: ProvisionedTopology;
  /** What a process of this test needs in its environment. */
  env: Record<string, string>;
  config: C;
  deps: ServiceDeps;
  /** Closes the connections and drops the database. */
  close(): Promise<void>;
}

/**
 * A service's connections under names of the test's own: a new database, a
 * topology prefix (topics, queues, bucket) and a Redis prefix, against the
 * emulator the global setup started. `env` adds or overrides variables.
 */
export async function connectServiceUnderTest<C extends ServiceConfig>(options: {
  service: ConsumerName;
  label: string;
  loadConfig(env: Record<string, string | undefined>): C;
  migrations: SqlMigration[];
  env?: Record<string, string>;
}): Promise<ServiceUnderTest<C>> {
  const db = await createTestDatabase(options.label);
  const aws = testAws();
  const topology = await testTopology(aws, options.label);
  aws.close();
  const env: Record<string, string> = {
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    AWS_ENDPOINT_URL: inject('awsEndpoint'),
    HIREFLOW_TOPOLOGY_PREFIX: topology.prefix,
    REDIS_PREFIX: `test:${uniqueName(options.label)}`,
    ...UNDER_TEST,
    ...options.env,
  };
  const config = options.loadConfig(env);
  const deps = await connectDeps(config, {
    service: options.service,
    migrations: options.migrations,
    env: {},
    log: createLogger(options.service, config.LOG_LEVEL),
  });
  return {
    db,
    topology,
    env,
    config,
    deps,
    close: async () => {
      await deps.close();
      await db.drop();
    },
  };
}

/**
 * The harness of one test file: started before its tests, closed after them.
 * The object returned forwards to it, so tests write `h.publish(…)`.
 */
export function useHarness<H extends object>(
  start: () => Promise<H>,
  close: (harness: H) => Promise<void>,
): H {
  let current: H | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    if (current) await close(current);
  });
  return new Proxy({} as H, {
    get(_target, property) {
      if (!current) throw new Error('the harness starts in beforeAll: use it in tests and hooks');
      return current[property as keyof H];
    },
  });
}
