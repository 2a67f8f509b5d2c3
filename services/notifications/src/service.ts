import type { ServiceDefinition } from '@hireflow/runtime';
import { buildAdmin, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { entities, migrations } from './db/schema.ts';
import { EMAIL_QUEUE } from './modules/intents/email-queue.ts';
import { startWorker } from './worker.ts';

/** The notifications service as `runService` runs it. */
export const notificationsService: ServiceDefinition<Config> = {
  name: 'notifications',
  loadConfig,
  entities,
  migrations,
  queues: [EMAIL_QUEUE],
  buildApp,
  buildAdmin,
  startWorker: (config, deps) => startWorker(config, deps),
};
