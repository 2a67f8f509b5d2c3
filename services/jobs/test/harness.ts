import type { ProvisionedTopology } from '@hireflow/infra';
import { buildApp } from '@hireflow/jobs';
import { type Config, loadConfig } from '@hireflow/jobs/config';
import { connectDeps, createLogger, type ServiceDeps } from '@hireflow/runtime';
import { createTestDatabase, type TestDatabase, testAws, testTopology, uniqueName } from '@hireflow/testing';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { entities, migrations } from '../src/db/schema.ts';
import { issueApiKey } from '../src/modules/tenants/api-keys.ts';

export interface JobsHarness {
  db: TestDatabase;
  topology: ProvisionedTopology;
  config: Config;
  deps: ServiceDeps;
  app: FastifyInstance;
  env: Record<string, string>;
  tenants: { a: Tenant; b: Tenant };
  close(): Promise<void>;
}

export interface Tenant {
  tenantId: string;
  keyId: string;
  key: string;
  auth: { authorization: string };
}

/** A jobs API of the test's own: database, topology prefix, Redis prefix, two tenants. */
export async function startJobsHarness(
  label: string,
  overrides: Record<string, string> = {},
): Promise<JobsHarness> {
  const db = await createTestDatabase(label);
  const aws = testAws();
  const topology = await testTopology(aws, label);
  aws.close();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    AWS_ENDPOINT_URL: inject('awsEndpoint'),
    HIREFLOW_TOPOLOGY_PREFIX: topology.prefix,
    REDIS_PREFIX: `test:${uniqueName(label)}`,
    LOG_LEVEL: 'silent',
    ROLE: 'api',
    ...overrides,
  };
  const config = loadConfig(env);
  const deps = await connectDeps(config, {
    service: 'jobs',
    entities,
    migrations,
    env: {},
    log: createLogger('jobs', config.LOG_LEVEL),
  });
  const app = await buildApp(config, deps);
  const tenant = async (name: string): Promise<Tenant> => {
    const issued = await issueApiKey(deps.orm.em.fork(), name, `${name}@example.test`);
    return { ...issued, auth: { authorization: `Bearer ${issued.key}` } };
  };
  const tenants = { a: await tenant(uniqueName('a')), b: await tenant(uniqueName('b')) };
  return {
    db,
    topology,
    config,
    deps,
    app,
    env,
    tenants,
    close: async () => {
      await app.close();
      await deps.close();
      await db.drop();
    },
  };
}

export const validJob = {
  title: 'Backend engineer',
  description: 'Node.js, Postgres, event-driven systems.',
  skills: ['node', 'postgres'],
  location: 'Berlin',
  remote: true,
};

export const validCandidate = {
  name: 'Ada Lovelace',
  email: 'ada@example.test',
  headline: 'Engineer',
  skills: ['node'],
  location: 'London',
};
