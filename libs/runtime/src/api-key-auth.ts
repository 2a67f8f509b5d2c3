import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem } from './problem.ts';

/** Who called a public route: the API key and the tenant it was issued to. */
export interface ApiPrincipal {
  tenantId: string;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API client; set on every /v1 route. */
    principal: ApiPrincipal | null;
  }
}

/**
 * Keys carry 256 random bits, so a plain SHA-256 is a safe stored form (slow
 * password hashes guard low-entropy secrets; these are not). jobs stores it;
 * other services authenticate with the same hash, fed by `apikey.issued.v1`.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface ApiKeyAuthOptions {
  /** The active (not revoked) key with this hash, or null: the service's own table or projection. */
  lookup(keyHash: string): Promise<ApiPrincipal | null>;
  /** How long a found key is cached in this process: a revocation takes effect within it. */
  cacheTtlMs?: number;
  /** How long "no such key" is cached (default `cacheTtlMs`); a projection that learns keys late wants it short. */
  unknownTtlMs?: number;
}

const unauthorized = (detail: string) =>
  new HttpProblem(401, 'UNAUTHORIZED', detail, {
    errors: [{ field: 'authorization', message: detail }],
    headers: { 'www-authenticate': 'Bearer realm="hireflow"' },
  });

const MAX_CACHED = 10_000;

/** `Authorization: Bearer <key>` on every route under /v1; 401 problem+json otherwise. */
export const apiKeyAuthPlugin = fp<ApiKeyAuthOptions>(
  async (app, options) => {
    const ttl = options.cacheTtlMs ?? 10_000;
    const unknownTtl = options.unknownTtlMs ?? ttl;
    const cache = new Map<string, { principal: ApiPrincipal | null; until: number }>();

    const lookup = async (hash: string): Promise<ApiPrincipal | null> => {
      const hit = cache.get(hash);
      if (hit && hit.until > Date.now()) return hit.principal;
      const principal = await options.lookup(hash);
      if (cache.size > MAX_CACHED) cache.clear();
      cache.set(hash, { principal, until: Date.now() + (principal ? ttl : unknownTtl) });
      return principal;
    };

    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request: FastifyRequest) => {
      // The matched route, not the raw URL: `/%761/jobs` routes to /v1/jobs too.
      if (!isPublicApiRoute(request)) return;
      const header = request.headers.authorization;
      if (!header)
        throw unauthorized('Authorization header is missing; send "Authorization: Bearer <api key>"');
      const match = /^Bearer\s+(\S{1,512})$/i.exec(header);
      if (!match) throw unauthorized('Authorization header must be "Bearer <api key>"');
      const principal = await lookup(hashApiKey(match[1]!));
      if (!principal) throw unauthorized('The API key is unknown or revoked');
      request.principal = principal;
    });
  },
  { name: 'hireflow-api-key-auth' },
);

/** Whether the request was routed to a public API route (everything under /v1). */
export function isPublicApiRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith('/v1/') ?? false;
}

/**
 * The request's principal; routes under /v1 always have one. `P` is what the
 * service's `lookup` returns (a principal with more fields), so the cast is
 * the service's promise.
 */
export function principalOf<P extends ApiPrincipal = ApiPrincipal>(request: FastifyRequest): P {
  if (!request.principal) throw new HttpProblem(401, 'UNAUTHORIZED', 'Not authenticated');
  return request.principal as P;
}
