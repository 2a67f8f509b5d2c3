import type { Database } from '@hireflow/db';
import {
  type ApiKeyAuthOptions,
  type ApiPrincipal,
  principalOf as principalOfRequest,
} from '@hireflow/runtime';
import type { FastifyRequest } from 'fastify';
import { findActiveKey } from './store.ts';

/** The jobs API's principal: a key, its tenant, and the tenant's contact address. */
export interface Principal extends ApiPrincipal {
  /** The tenant's contact address (the default contact of its postings). */
  contactEmail: string;
}

/**
 * Keys are looked up in jobs' own tables (the shared plugin of
 * `@hireflow/runtime` caches them 10 s: a revocation takes effect within that).
 */
export function apiKeyLookup(orm: Database): Omit<ApiKeyAuthOptions, 'limiter'> {
  return { lookup: (hash) => findActiveKey(orm.em.fork(), hash) };
}

/** The request's principal; routes under /v1 always have one (jobs' lookup returns a Principal). */
export function principalOf(request: FastifyRequest): Principal {
  return principalOfRequest<Principal>(request);
}
