import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import { idempotencyPlugin } from '@hireflow/idempotency';
import {
  type AppState,
  apiKeyAuthPlugin,
  concurrencySlots,
  createServiceServer,
  failedAuthLimiter,
  HttpProblem,
  isPublicApiRoute,
  limiterConnection,
  type ServiceDeps,
} from '@hireflow/runtime';
import type { Config } from './config.ts';
import { DOCS_PREFIX, registerOpenApi } from './http/openapi.ts';
import { candidateRoutes } from './modules/candidates/routes.ts';
import { createAutoCloseQueue, scheduleAutoClose } from './modules/postings/auto-close.ts';
import { postingRoutes } from './modules/postings/routes.ts';
import { StatusFeed } from './modules/postings/status-feed.ts';
import { keyLookup } from './modules/tenants/auth.ts';

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

  await app.register(underPressure, {
    maxEventLoopDelay: config.LOAD_SHED_EVENT_LOOP_DELAY_MS,
    retryAfter: 5,
    exposeStatusRoute: false,
  });
  // The limiters fail open on their own fail-fast connection: with Redis away,
  // requests go on unlimited rather than hang (docs/decisions.md).
  const limiterRedis = limiterConnection(deps.redis);
  app.addHook('onClose', async () => {
    limiterRedis.disconnect();
  });
  await app.register(apiKeyAuthPlugin, {
    lookup: keyLookup(deps.orm),
    limiter: failedAuthLimiter({
      redis: limiterRedis,
      prefix: config.REDIS_PREFIX,
      max: config.FAILED_AUTH_MAX,
      windowMs: config.FAILED_AUTH_WINDOW_MS,
      log: deps.log,
    }),
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
  await registerOpenApi(app, { docsPage: config.API_DOCS });

  const feed = new StatusFeed(deps.redis, config.REDIS_PREFIX);
  const autoClose = createAutoCloseQueue(deps.redis, config.REDIS_PREFIX, deps.log);
  app.addHook('onClose', async () => {
    await feed.close();
    await autoClose.close();
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
    autoCloseAfterMs: config.JOB_AUTO_CLOSE_AFTER_MS,
    scheduleAutoClose: (job, delayMs) => scheduleAutoClose(autoClose, job, delayMs),
  });
  await app.register(candidateRoutes, { orm: deps.orm });
  await app.ready();
  return app;
}
