import type { ServiceDefinition } from '@hireflow/runtime';
import { buildAdmin, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { migrations } from './db/schema.ts';
import { EMAIL_QUEUE } from './modules/intents/email-queue.ts';

/** The notifications service as `runService` runs it. */
export const notificationsService: ServiceDefinition<Config> = {
  name: 'notifications',
  loadConfig,
  migrations,
  queues: [EMAIL_QUEUE],
  buildApp,
  buildAdmin,
  // The worker's code (its consumers, processors, the mailer or the image
  // pipeline) is loaded by the processes that run it, not by an API process.
  startWorker: async (config, deps) => (await import('./worker.ts')).startWorker(config, deps),
};
