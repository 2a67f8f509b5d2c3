import underPressure from '@fastify/under-pressure';
import { positiveInt } from '@hireflow/config';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { type ApiKeyAuthOptions, apiKeyAuthPlugin, isPublicApiRoute } from './api-key-auth.ts';
import { failedAuthLimiter, limiterConnection } from './front-door.ts';
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
  RATE_LIMIT_PREFIX: z
    .string()
    .regex(/^[a-z0-9:_-]+$/, 'must contain only lowercase letters, digits, ":", "_" and "-"')
    .default('hf:rate-limit')
    .describe(
      'Redis prefix of the per-key request counts: the same in every service with a public API, so one key has one window across jobs and media (one Redis key per API key).',
    ),
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
  APIKEY_EVENT_KEY: z
    .string()
    .min(32, 'must be at least 32 characters')
    .max(512, 'must be at most 512 characters')
    .optional()
    .describe(
      'Secret of jobs and media only: jobs signs apikey.* events with it, media refuses those without its signature. Required in production.',
    ),
});

/** What NODE_ENV=production requires of a service with a public API (parseServiceConfig's requiredInProduction). */
export const PUBLIC_API_SECRETS = {
  APIKEY_EVENT_KEY: 'it signs the API-key events, so that no other publisher can announce a key',
} as const;

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
 * credentials (429, never for a valid key), and a per-key rate limit in Redis
 * (429 with Retry-After; a fixed window under RATE_LIMIT_PREFIX, so one key
 * has one window across every service). Returns the limiters' connection, for other
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
      rateWindowMs: config.RATE_LIMIT_WINDOW_MS,
      ratePrefix: config.RATE_LIMIT_PREFIX,
      log: options.log,
    }),
  });
  // The per-key limit: the count came with the authentication (one round trip); decided here.
  const max = config.RATE_LIMIT_MAX;
  const enforce = (request: FastifyRequest, reply: FastifyReply) => {
    const rate = request.requestCount;
    if (!rate || !isPublicApiRoute(request)) return;
    const resetSeconds = Math.max(1, Math.ceil(rate.resetMs / 1000));
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - rate.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (rate.count > max) {
      throw new HttpProblem(
        429,
        'RATE_LIMITED',
        `Rate limit of ${max} requests exceeded; retry in ${resetSeconds} s`,
        {
          headers: { 'retry-after': String(resetSeconds) },
        },
      );
    }
  };
  const hook = options.rateLimitHook ?? 'preHandler';
  if (hook === 'preParsing') {
    app.addHook('preParsing', async (request, reply, payload) => {
      enforce(request, reply);
      return payload;
    });
  } else {
    app.addHook(hook, async (request, reply) => enforce(request, reply));
  }
  return { limiterRedis };
}
