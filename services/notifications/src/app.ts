import { type AppState, createAdminServer, createServiceServer, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { registerInternalRoutes } from './modules/intents/routes.ts';
import { registerUnsubscribeRoutes } from './modules/suppression/routes.ts';
import { unsubscribeTokens } from './modules/suppression/token.ts';

/**
 * The notifications service port, ready but not listening (tests use
 * `inject()`): health, and the one public route, the one-click unsubscribe
 * link every email carries.
 */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state);
  if (config.ROLE !== 'worker') {
    registerUnsubscribeRoutes(app, {
      orm: deps.orm,
      tokens: unsubscribeTokens(config.UNSUBSCRIBE_SIGNING_KEY),
    });
  }
  await app.ready();
  return app;
}

/** The admin listener: the internal read API of the notification log. */
export async function buildAdmin(config: Config, deps: ServiceDeps) {
  const admin = createAdminServer(config, deps);
  registerInternalRoutes(admin, { orm: deps.orm });
  await admin.ready();
  return admin;
}
