import { buildApp } from '@hireflow/jobs';
import { type Config, loadConfig } from '@hireflow/jobs/config';
import type { ProvisionedTopology } from '@hireflow/ops';
import type { ServiceDeps } from '@hireflow/runtime';
import { type TestDatabase, uniqueName } from '@hireflow/testing';
import { connectServiceUnderTest } from '@hireflow/testing/service';
import type { FastifyInstance } from 'fastify';
import { migrations } from '../src/db/schema.ts';
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
  const service = await connectServiceUnderTest({
    service: 'jobs',
    label,
    loadConfig,
    migrations,
    env: { ROLE: 'api', ...overrides },
  });
  const { db, topology, env, config, deps } = service;
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
      await service.close();
    },
  };
}

export const validPosting = {
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
