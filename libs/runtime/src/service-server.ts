import type { ServiceDeps } from './deps.ts';
import { registerHealthRoutes } from './health.ts';
import { createHttpServer } from './http.ts';
import { readinessChecks } from './readiness.ts';
import type { ServiceConfig } from './service-config.ts';

/** What a service's `buildApp` learns from its lifecycle. */
export interface AppState {
  /** False once shutdown began: /health/ready answers 503 so traffic drains. */
  accepting: () => boolean;
}

const ACCEPTING: AppState = { accepting: () => true };

/**
 * The service port every service's `buildApp` starts from: the project's
 * HTTP conventions and health, with readiness over the service's own
 * Postgres, Redis and inbox. Public routes only: nothing internal or
 * administrative is ever served here (that is the admin listener's).
 */
export function createServiceServer(
  _config: ServiceConfig,
  deps: ServiceDeps,
  state: AppState = ACCEPTING,
  options: { bodyLimit?: number } = {},
) {
  const app = createHttpServer({
    log: deps.log,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
  });
  registerHealthRoutes(app, { checks: readinessChecks(deps), accepting: state.accepting, log: deps.log });
  return app;
}
