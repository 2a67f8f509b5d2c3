import { type AppState, createServiceServer, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';

/** The matching service's HTTP app, ready but not listening (tests use `inject()`). */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state);
  await app.ready();
  return app;
}
