import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import { idempotencyPlugin } from '@hireflow/idempotency';
import { type AppState, createServiceServer, HttpProblem, type ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { registerOpenApi } from './http/openapi.ts';
import { candidateRoutes } from './modules/candidates/routes.ts';
import { createAutoCloseQueue, scheduleAutoClose } from './modules/postings/auto-close.ts';
import { postingRoutes } from './modules/postings/routes.ts';
import { StatusFeed } from './modules/postings/status-feed.ts';
import { authPlugin, isPublicApiRoute } from './modules/tenants/auth.ts';

/** The jobs service's HTTP app, ready but not listening (tests use `inject()`). */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state, { bodyLimit: config.BODY_LIMIT_BYTES });
  if (config.ROLE === 'worker') {
    await app.ready();
    return app;
  }

  await app.register(underPressure, {
    maxEventLoopDelay: config.LOAD_SHED_EVENT_LOOP_DELAY_MS,
    retryAfter: 5,
    exposeStatusRoute: false,
  });
  await app.register(authPlugin, { orm: deps.orm });
  // The limiter fails open on its own fail-fast connection: with Redis away,
  // requests go on unlimited rather than hang (docs/decisions.md).
  const limiterRedis = deps.redis.duplicate({
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
  });
  limiterRedis.on('error', () => undefined);
  app.addHook('onClose', async () => {
    limiterRedis.disconnect();
  });
  await app.register(rateLimit, {
    // After authentication (onRequest): the limit is per API key.
    hook: 'preHandler',
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    redis: limiterRedis,
    skipOnError: true,
    nameSpace: `${config.REDIS_PREFIX}:rate-limit:`,
    keyGenerator: (request) => request.principal?.keyId ?? request.ip,
    allowList: (request) => !isPublicApiRoute(request),
    errorResponseBuilder: (_request, context) =>
      new HttpProblem(
        429,
        'RATE_LIMITED',
        `Rate limit of ${context.max} requests exceeded; retry in ${context.after}`,
      ),
  });
  await app.register(idempotencyPlugin, { orm: deps.orm, scope: (request) => request.principal?.tenantId });
  await registerOpenApi(app);

  const feed = new StatusFeed(deps.redis, config.REDIS_PREFIX);
  const autoClose = createAutoCloseQueue(deps.redis, config.REDIS_PREFIX, deps.log);
  app.addHook('onClose', async () => {
    await feed.close();
    await autoClose.close();
  });
  await app.register(postingRoutes, {
    orm: deps.orm,
    feed,
    autoCloseAfterMs: config.JOB_AUTO_CLOSE_AFTER_MS,
    scheduleAutoClose: (job, delayMs) => scheduleAutoClose(autoClose, job, delayMs),
  });
  await app.register(candidateRoutes, { orm: deps.orm });
  await app.ready();
  return app;
}
