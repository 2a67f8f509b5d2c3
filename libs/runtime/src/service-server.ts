import type { ServiceDeps } from './deps.ts';
import { registerHealthRoutes } from './health.ts';
import { createHttpServer } from './http.ts';
import { readinessChecks } from './readiness.ts';
import { type ServiceConfig, trustProxyOf } from './service-config.ts';

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
  config: ServiceConfig,
  deps: ServiceDeps,
  state: AppState = ACCEPTING,
  options: { bodyLimit?: number; relaxedCsp?: string[] } = {},
) {
  const app = createHttpServer({
    log: deps.log,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    trustProxy: trustProxyOf(config.TRUST_PROXY),
    ...options,
  });
  registerHealthRoutes(app, { checks: readinessChecks(deps), accepting: state.accepting, log: deps.log });
  return app;
}
