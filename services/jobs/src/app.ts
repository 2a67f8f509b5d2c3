import { createHttpServer, readinessChecks, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';

export interface AppState {
  /** False once shutdown began: /health/ready answers 503 so traffic drains. */
  accepting: () => boolean;
}

/** The jobs service's HTTP app, ready but not listening (tests use `inject()`). */
export async function buildApp(
  config: Config,
  deps: ServiceDeps,
  state: AppState = { accepting: () => true },
) {
  const app = createHttpServer({
    service: 'jobs',
    logLevel: config.LOG_LEVEL,
    health: { checks: readinessChecks(deps), accepting: state.accepting },
  });
  await app.ready();
  return app;
}
