import type { ServiceName } from '@hireflow/infra';
import { readinessChecks, type ServiceDeps } from './deps.ts';
import { createHttpServer } from './http.ts';
import type { ServiceConfig } from './service-config.ts';

/** What a service's `buildApp` learns from its lifecycle. */
export interface AppState {
  /** False once shutdown began: /health/ready answers 503 so traffic drains. */
  accepting: () => boolean;
}

const ACCEPTING: AppState = { accepting: () => true };

/**
 * The server every service's `buildApp` starts from: the project's HTTP
 * conventions, with readiness over the service's own Postgres, Redis and inbox.
 */
export function createServiceServer(
  service: ServiceName,
  config: ServiceConfig,
  deps: ServiceDeps,
  state: AppState = ACCEPTING,
  options: { bodyLimit?: number } = {},
) {
  return createHttpServer({
    service,
    logLevel: config.LOG_LEVEL,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    health: { checks: readinessChecks(deps), accepting: state.accepting },
  });
}
