export { createAdminServer } from './admin.ts';
export type { ApiKeyAuthOptions, ApiPrincipal } from './api-key-auth.ts';
export { apiKeyAuthPlugin, hashApiKey, isPublicApiRoute, principalOf } from './api-key-auth.ts';
export type { AwsSettings } from './aws.ts';
export { awsConfigSchema, awsSettings, createSnsClient, createSqsClient } from './aws.ts';
export type { ServiceChannels } from './channels.ts';
export { resolveChannels } from './channels.ts';
export type { ConnectOptions, ServiceDeps } from './deps.ts';
export { connectDeps } from './deps.ts';
export type { ConcurrencySlots, FailedAuthLimiter } from './front-door.ts';
export { concurrencySlots, failedAuthLimiter, limiterConnection } from './front-door.ts';
export type { HealthOptions, ReadinessCheck } from './health.ts';
export { registerHealthRoutes } from './health.ts';
export type { HttpServer, HttpServerOptions } from './http.ts';
export { createHttpServer } from './http.ts';
export { pageLimit, problemSchema } from './http-schemas.ts';
export type { Inbox, InboxOptions } from './inbox.ts';
export { IDEMPOTENCY_PRUNE_INTERVAL_MS, startInbox, VISIBILITY_RESIZE_INTERVAL_MS } from './inbox.ts';
export type { Closeable, ServiceDefinition } from './lifecycle.ts';
export { runService } from './lifecycle.ts';
export type { Logger } from './logger.ts';
export { createLogger, silentLogger } from './logger.ts';
export type { PeriodicTask } from './maintenance.ts';
export { startPeriodicTasks } from './maintenance.ts';
export type {
  DeadLetterAlarms,
  OutboxStats,
  QueueGauges,
  QueueHandles,
  QueueSamplerOptions,
  ServiceMetrics,
} from './metrics/index.ts';
export {
  BULL_BOARD_PATH,
  createMetrics,
  deadLetterAlarms,
  queueHandles,
  registerBullBoard,
  sampleQueues,
  startQueueSampler,
} from './metrics/index.ts';
export type { DocumentedAs, OpenApiDocument, OpenApiOptions, ResponseHeader } from './openapi.ts';
export {
  describeRoutes,
  jsonResponse,
  LOCATION_HEADER,
  notServed,
  problemResponses,
  pruneUnusedSchemas,
  registerOpenApi,
} from './openapi.ts';
export type { Problem } from './problem.ts';
export { HttpProblem, problem, registerProblemHandlers, sendProblem } from './problem.ts';
export type { PublicApiConfig, PublicApiOptions } from './public-api.ts';
export { PUBLIC_API_SECRETS, publicApiConfigSchema, registerPublicApi } from './public-api.ts';
export { readinessChecks } from './readiness.ts';
export { closeRedis } from './redis.ts';
export type { ServiceConfig } from './service-config.ts';
export {
  adminPortOf,
  parseConfig,
  parseServiceConfig,
  samplesQueues,
  serviceConfigSchema,
  trustProxyOf,
} from './service-config.ts';
export type { AppState } from './service-server.ts';
export { createServiceServer } from './service-server.ts';
export { TimeoutError, withTimeout } from './timeout.ts';
