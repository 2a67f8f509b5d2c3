import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import { positiveInt } from '@hireflow/config';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { type ApiKeyAuthOptions, apiKeyAuthPlugin, isPublicApiRoute } from './api-key-auth.ts';
import { checkedLimiterReplies, failedAuthLimiter, limiterConnection } from './front-door.ts';
import type { Logger } from './logger.ts';
import { HttpProblem } from './problem.ts';

/** The variables of a service with a public API (jobs, media): rate limit and load shedding. */
export const publicApiConfigSchema = z.object({
  RATE_LIMIT_MAX: positiveInt(
    'Requests one API key may make per RATE_LIMIT_WINDOW_MS (429 beyond).',
    1200,
    1_000_000,
  ),
  RATE_LIMIT_WINDOW_MS: positiveInt('Rate limit window.', 60_000, 3_600_000),
  LOAD_SHED_EVENT_LOOP_DELAY_MS: positiveInt(
    'Event loop delay above which requests are shed with 503 + Retry-After.',
    1000,
    60_000,
  ),
  FAILED_AUTH_MAX: positiveInt(
    'Requests with missing or wrong credentials one client address may make per FAILED_AUTH_WINDOW_MS; beyond, 429 before any lookup.',
    30,
    100_000,
  ),
  FAILED_AUTH_WINDOW_MS: positiveInt('Window of the failed-credentials limit.', 60_000, 3_600_000),
});

export type PublicApiConfig = z.output<typeof publicApiConfigSchema>;

export interface PublicApiOptions {
  config: PublicApiConfig & { REDIS_PREFIX: string };
  /** The service's connection: the limiter duplicates it with fail-fast settings. */
  redis: Redis;
  auth: Omit<ApiKeyAuthOptions, 'limiter'>;
  log: Logger;
  /**
   * The hook the rate limit runs in, after authentication (onRequest) so the
   * limit is per API key: `preParsing` refuses a limited upload before its
   * body is read; default `preHandler`.
   */
  rateLimitHook?: 'preParsing' | 'preValidation' | 'preHandler';
}

/**
 * What every public API shares, in order: load shedding (503 with
 * Retry-After when the event loop lags), API-key authentication of /v1
 * routes (401 problem+json) behind a per-address limit on failed
 * credentials (429 before any lookup), and a per-key rate limit in Redis
 * (429 with Retry-After). Returns the limiters' connection, for other
 * cross-process limits of the service (SSE streams). The limiter fails open on its own fail-fast connection: with
 * Redis away, requests go on unlimited rather than hang (docs/decisions.md).
 */
export async function registerPublicApi(
  app: FastifyInstance,
  options: PublicApiOptions,
): Promise<{ limiterRedis: Redis }> {
  const { config } = options;
  await app.register(underPressure, {
    maxEventLoopDelay: config.LOAD_SHED_EVENT_LOOP_DELAY_MS,
    retryAfter: 5,
    exposeStatusRoute: false,
  });
  const limiterRedis = limiterConnection(options.redis);
  app.addHook('onClose', async () => {
    limiterRedis.disconnect();
  });
  await app.register(apiKeyAuthPlugin, {
    ...options.auth,
    limiter: failedAuthLimiter({
      redis: limiterRedis,
      prefix: config.REDIS_PREFIX,
      max: config.FAILED_AUTH_MAX,
      windowMs: config.FAILED_AUTH_WINDOW_MS,
      log: options.log,
    }),
  });
  await app.register(rateLimit, {
    hook: options.rateLimitHook ?? 'preHandler',
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    redis: checkedLimiterReplies(limiterRedis),
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
  return { limiterRedis };
}
