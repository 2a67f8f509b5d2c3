import type { MikroORM } from '@hireflow/db';
import { type ApiPrincipal, HttpProblem, principalOf as principalOfRequest } from '@hireflow/runtime';
import type { FastifyRequest } from 'fastify';
import { findActiveKey } from './store.ts';

/** A jobs client: the tenant, its key, and the tenant's contact address. */
export type Principal = Required<ApiPrincipal>;

/** The principal of an active key, by its hash (the shared auth plugin caches it). */
export function keyLookup(orm: MikroORM) {
  return (keyHash: string): Promise<ApiPrincipal | null> => findActiveKey(orm.em.fork(), keyHash);
}

/** The request's principal with its tenant's contact address (jobs always knows it). */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principalOfRequest(request);
  if (principal.contactEmail === undefined) throw new HttpProblem(401, 'UNAUTHORIZED', 'Not authenticated');
  return principal as Principal;
}
