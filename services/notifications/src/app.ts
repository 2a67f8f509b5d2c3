import { createHttpServer, readinessChecks, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { registerNotificationRoutes } from './modules/notifications/routes.ts';

export interface AppState {
  /** False once shutdown began: /health/ready answers 503 so traffic drains. */
  accepting: () => boolean;
}

/** The notifications service's HTTP app, ready but not listening (tests use `inject()`). */
export async function buildApp(
  config: Config,
  deps: ServiceDeps,
  state: AppState = { accepting: () => true },
) {
  const app = createHttpServer({
    service: 'notifications',
    logLevel: config.LOG_LEVEL,
    health: { checks: readinessChecks(deps), accepting: state.accepting },
  });
  // The worker role serves only /health; the internal read API comes with the API role.
  if (config.ROLE !== 'worker') registerNotificationRoutes(app, { orm: deps.orm });
  await app.ready();
  return app;
}
