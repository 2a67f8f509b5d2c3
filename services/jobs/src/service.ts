import { outboxStats } from '@hireflow/messaging';
import type { ServiceDefinition } from '@hireflow/runtime';
import { buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { entities, migrations } from './db/schema.ts';
import { AUTO_CLOSE_QUEUE } from './modules/postings/auto-close.ts';
import { startWorker } from './worker.ts';

/** The jobs service as `runService` runs it. */
export const jobsService: ServiceDefinition<Config> = {
  name: 'jobs',
  loadConfig,
  entities,
  migrations,
  queues: [AUTO_CLOSE_QUEUE],
  outboxStats: (deps) => outboxStats(deps.orm.em.fork()),
  buildApp,
  startWorker,
};
