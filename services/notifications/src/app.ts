import { type AppState, createServiceServer, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { registerNotificationRoutes } from './modules/notifications/routes.ts';

/** The notifications service's HTTP app, ready but not listening (tests use `inject()`). */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer('notifications', config, deps, state);
  // The worker role serves only /health; the internal read API comes with the API role.
  if (config.ROLE !== 'worker') registerNotificationRoutes(app, { orm: deps.orm });
  await app.ready();
  return app;
}
