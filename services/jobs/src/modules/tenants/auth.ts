import type { MikroORM } from '@hireflow/db';
import { HttpProblem } from '@hireflow/runtime';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashApiKey } from './api-keys.ts';
import { findActiveKey } from './store.ts';

export interface Principal {
  tenantId: string;
  keyId: string;
  /** The tenant's contact address (the default contact of its postings). */
  contactEmail: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API client; set on every /v1 route. */
    principal: Principal | null;
  }
}

export interface AuthOptions {
  orm: MikroORM;
  /**
   * How long a key lookup is cached in this process. A revocation takes
   * effect within this time (documented in docs/decisions.md).
   */
  cacheTtlMs?: number;
}

const unauthorized = (detail: string) =>
  new HttpProblem(401, 'UNAUTHORIZED', detail, {
    errors: [{ field: 'authorization', message: detail }],
    headers: { 'www-authenticate': 'Bearer realm="hireflow"' },
  });

/** `Authorization: Bearer <key>` on every route under /v1; 401 problem+json otherwise. */
export const authPlugin = fp<AuthOptions>(
  async (app, options) => {
    const ttl = options.cacheTtlMs ?? 10_000;
    const cache = new Map<string, { principal: Principal | null; until: number }>();

    const lookup = async (hash: string): Promise<Principal | null> => {
      const hit = cache.get(hash);
      if (hit && hit.until > Date.now()) return hit.principal;
      const principal = await findActiveKey(options.orm.em.fork(), hash);
      if (cache.size > 10_000) cache.clear();
      cache.set(hash, { principal, until: Date.now() + ttl });
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
  { name: 'hireflow-auth' },
);

/** Whether the request was routed to a public API route (everything under /v1). */
export function isPublicApiRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith('/v1/') ?? false;
}

/** The request's principal; routes under /v1 always have one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new HttpProblem(401, 'UNAUTHORIZED', 'Not authenticated');
  return request.principal;
}
