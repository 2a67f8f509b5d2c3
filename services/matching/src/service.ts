import type { ServiceDefinition } from '@hireflow/runtime';
import { buildAdmin, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { entities, migrations } from './db/schema.ts';
import { startWorker } from './worker.ts';

/** The matching service as `runService` runs it. */
export const matchingService: ServiceDefinition<Config> = {
  name: 'matching',
  loadConfig,
  entities,
  migrations,
  buildApp,
  buildAdmin,
  startWorker: (config, deps) => startWorker(config, deps),
};
