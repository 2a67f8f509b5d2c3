import { idempotencyPlugin } from '@hireflow/idempotency';
import { registerEventLogRoutes } from '@hireflow/messaging';
import {
  type AppState,
  concurrencySlots,
  createAdminServer,
  createServiceServer,
  describeRoutes,
  notServed,
  type OpenApiDocument,
  registerPublicApi,
  type ServiceDeps,
} from '@hireflow/runtime';
import type { Config } from './config.ts';
import { DOCS_PREFIX, jobsOpenApi, registerJobsOpenApi } from './http/openapi.ts';
import { candidateRoutes } from './modules/candidates/routes.ts';
import { postingRoutes } from './modules/postings/routes.ts';
import { StatusFeed } from './modules/postings/status-feed.ts';
import { apiKeyLookup } from './modules/tenants/auth.ts';
import { createDeliveryQueue } from './modules/webhooks/deliveries.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';

export { webhooksSection } from './modules/webhooks/openapi.ts';

/** The jobs service's HTTP app, ready but not listening (tests use `inject()`). */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state, {
    bodyLimit: config.BODY_LIMIT_BYTES,
    relaxedCsp: [DOCS_PREFIX],
  });
  if (config.ROLE === 'worker') {
    await app.ready();
    return app;
  }

  const { limiterRedis } = await registerPublicApi(app, {
    config,
    redis: deps.redis,
    auth: apiKeyLookup(deps.orm),
    log: deps.log,
  });
  await app.register(idempotencyPlugin, { orm: deps.orm, scope: (request) => request.principal?.tenantId });
  await registerJobsOpenApi(app, { docsPage: config.API_DOCS });

  const feed = new StatusFeed(deps.redis, config.REDIS_PREFIX);
  app.addHook('onClose', async () => {
    await feed.close();
  });
  await app.register(postingRoutes, {
    orm: deps.orm,
    feed,
    streamSlots: concurrencySlots({
      redis: limiterRedis,
      prefix: `${config.REDIS_PREFIX}:sse`,
      limit: config.SSE_MAX_STREAMS_PER_KEY,
      leaseMs: 45_000,
      log: deps.log,
    }),
    maxStreamMs: config.SSE_MAX_STREAM_MS,
    keepAliveMs: config.SSE_KEEP_ALIVE_MS,
    autoCloseAfterMs: config.JOB_AUTO_CLOSE_AFTER_MS,
  });
  await app.register(candidateRoutes, { orm: deps.orm });
  const deliveries = createDeliveryQueue({ orm: deps.orm, log: deps.log });
  await app.register(webhookRoutes, {
    orm: deps.orm,
    queue: deliveries,
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    rotationGraceMs: config.WEBHOOK_ROTATION_GRACE_MS,
  });
  await app.ready();
  return app;
}

/** The admin listener: the events jobs published, for replays (`pnpm replay`, docs/replay.md). */
export async function buildAdmin(config: Config, deps: ServiceDeps) {
  const admin = createAdminServer(config, deps);
  registerEventLogRoutes(admin, { orm: deps.orm });
  await admin.ready();
  return admin;
}

/**
 * The OpenAPI document of jobs' public routes, without a database, Redis or
 * AWS: the routes are registered as `buildApp` registers them, on an app
 * that never serves them. It equals what a running jobs serves at
 * `/openapi.json` (tested).
 */
export function describeApi(): Promise<OpenApiDocument> {
  return describeRoutes(jobsOpenApi, async (app) => {
    await app.register(postingRoutes, {
      orm: notServed('orm'),
      feed: notServed('feed'),
      streamSlots: notServed('streamSlots'),
      maxStreamMs: 0,
      keepAliveMs: 0,
      autoCloseAfterMs: 0,
    });
    await app.register(candidateRoutes, { orm: notServed('orm') });
    await app.register(webhookRoutes, {
      orm: notServed('orm'),
      queue: notServed('queue'),
      allowHttp: false,
      rotationGraceMs: 0,
    });
  });
}
