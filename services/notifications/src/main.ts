import { connectDeps, runService } from '@hireflow/runtime';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { entities, migrations } from './db/schema.ts';
import { startWorker } from './worker.ts';

await runService({
  service: 'notifications',
  loadConfig: () => loadConfig(process.env),
  connect: (config) =>
    connectDeps(config, { service: 'notifications', entities, migrations, env: process.env }),
  buildApp,
  startWorker,
});
