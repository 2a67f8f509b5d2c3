import { outboxStats } from '@hireflow/messaging';
import type { ServiceDefinition } from '@hireflow/runtime';
import { buildAdmin, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { entities, migrations } from './db/schema.ts';
import { MATCH_QUEUE } from './modules/matches/queue.ts';
import { startWorker } from './worker.ts';

/** The matching service as `runService` runs it. */
export const matchingService: ServiceDefinition<Config> = {
  name: 'matching',
  loadConfig,
  entities,
  migrations,
  queues: [MATCH_QUEUE],
  outboxStats: (deps) => outboxStats(deps.orm.em.fork()),
  buildApp,
  buildAdmin,
  startWorker: (config, deps) => startWorker(config, deps),
};
