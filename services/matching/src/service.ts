import { outboxStats } from '@hireflow/messaging';
import type { ServiceDefinition } from '@hireflow/runtime';
import { buildAdmin, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { migrations } from './db/schema.ts';
import { MATCH_QUEUE } from './modules/matches/queue-name.ts';

/** The matching service as `runService` runs it. */
export const matchingService: ServiceDefinition<Config> = {
  name: 'matching',
  loadConfig,
  migrations,
  queues: [MATCH_QUEUE],
  outboxStats: (deps) => outboxStats(deps.orm.em.fork()),
  buildApp,
  buildAdmin,
  // The worker's code (its consumers, processors, the mailer or the image
  // pipeline) is loaded by the processes that run it, not by an API process.
  startWorker: async (config, deps) => (await import('./worker.ts')).startWorker(config, deps),
};
