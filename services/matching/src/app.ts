import { type AppState, createAdminServer, createServiceServer, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { registerInternalRoutes } from './modules/matches/routes.ts';

/**
 * The matching service port, ready but not listening (tests use `inject()`):
 * health only, since matching has no public API.
 */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state);
  await app.ready();
  return app;
}

/** The admin listener: the internal read API of the matches. */
export async function buildAdmin(config: Config, deps: ServiceDeps) {
  const admin = createAdminServer(config, deps);
  registerInternalRoutes(admin, { orm: deps.orm });
  await admin.ready();
  return admin;
}
