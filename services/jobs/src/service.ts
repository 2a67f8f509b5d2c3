import { outboxStats } from '@hireflow/messaging';
import type { ServiceDefinition } from '@hireflow/runtime';
import { buildAdmin, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { entities, migrations } from './db/schema.ts';
import { startWorker } from './worker.ts';

/** The jobs service as `runService` runs it. */
export const jobsService: ServiceDefinition<Config> = {
  name: 'jobs',
  loadConfig,
  entities,
  migrations,
  outboxStats: (deps) => outboxStats(deps.orm.em.fork()),
  buildApp,
  buildAdmin,
  startWorker,
};
