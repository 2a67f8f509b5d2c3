import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { FailedAuthLimiter, RequestCount } from './front-door.ts';
import { HttpProblem } from './problem.ts';

/** Who called a public route: the API key and the tenant it was issued to. */
export interface ApiPrincipal {
  tenantId: string;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API client; set on every public route (`/v1/…`). */
    principal: ApiPrincipal | null;
    /** The principal's key's requests in the current rate-limit window, counted with the authentication. */
    requestCount: RequestCount | undefined;
    /** The digest of the key the principal presented. */
    credentialHash: string | undefined;
  }
  interface FastifyInstance {
    /**
     * Whether the request's key is still active, looked up afresh (no cache):
     * long-lived answers (status streams) ask it as they go, so a revocation
     * ends them. A lookup that fails says yes: an outage does not end streams.
     */
    recheckApiKey(request: FastifyRequest): Promise<boolean>;
  }
}

/**
 * The stored form of an API key. Keys carry 256 random bits, so a plain
 * SHA-256 is safe (slow password hashes guard low-entropy secrets); every
 * service that authenticates keys compares this hash.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface ApiKeyAuthOptions {
  /** The principal of an active key by its hash, or null for an unknown or revoked key. */
  lookup(keyHash: string): Promise<ApiPrincipal | null>;
  /** Counts failed credentials per client address; blocked addresses get 429 before any lookup. */
  limiter: FailedAuthLimiter;
  /** How long a known key is cached in this process: a revocation takes effect within it (10 s). */
  cacheTtlMs?: number;
  /** How long an unknown key is remembered as unknown (5 s): random keys cost one lookup each, at most. */
  unknownTtlMs?: number;
  /** Entries per cache; the oldest goes first, so a flood of unknown keys cannot evict known ones. */
  cacheSize?: number;
}

/** A time-bounded, size-bounded cache: the oldest entry goes first (Map keeps insertion order). */
class ExpiringCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (hit.until > Date.now()) return hit.value;
    this.#entries.delete(key);
    return undefined;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#size) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, until: Date.now() + ttlMs });
  }
}

const unauthorized = (detail: string) =>
  new HttpProblem(401, 'UNAUTHORIZED', detail, {
    errors: [{ field: 'authorization', message: detail }],
    headers: { 'www-authenticate': 'Bearer realm="hireflow"' },
  });

/** Whether the request was routed to a public API route (everything under /v1): the matched route, not the raw URL. */
export function isPublicApiRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith('/v1/') ?? false;
}

/**
 * `Authorization: Bearer <key>` on every public route; 401 problem+json
 * otherwise. Failed credentials are counted per client address and per
 * presented credential (docs/security.md, API2/API4): beyond the limit, an
 * address's requests that do not authenticate get 429, and a credential that
 * failed too often is refused without a lookup; a valid key always passes,
 * whatever its address did, and only its own rate limit applies. The key's
 * request is counted for the rate limit: a cached key costs one Redis round
 * trip, an uncached one two (the failures, then the count).
 */
export const apiKeyAuthPlugin = fp<ApiKeyAuthOptions>(
  async (app: FastifyInstance, options: ApiKeyAuthOptions) => {
    const size = options.cacheSize ?? 10_000;
    const known = new ExpiringCache<ApiPrincipal>(size);
    const unknown = new ExpiringCache<true>(size);
    const lookup = async (hash: string): Promise<ApiPrincipal | null> => {
      const cached = known.get(hash);
      if (cached) return cached;
      if (unknown.get(hash)) return null;
      const principal = await options.lookup(hash);
      if (principal) known.set(hash, principal, options.cacheTtlMs ?? 10_000);
      else unknown.set(hash, true, options.unknownTtlMs ?? 5000);
      return principal;
    };
    const tooManyFailures = (retryAfterSeconds: number) =>
      new HttpProblem(
        429,
        'TOO_MANY_FAILED_AUTHENTICATIONS',
        `Too many requests with missing or wrong credentials from this address; retry in ${retryAfterSeconds} s`,
        { headers: { 'retry-after': String(retryAfterSeconds) } },
      );

    app.decorateRequest('principal', null);
    app.decorateRequest('requestCount', undefined);
    app.decorateRequest('credentialHash', undefined);
    app.decorate('recheckApiKey', async (request: FastifyRequest): Promise<boolean> => {
      const hash = request.credentialHash;
      if (!hash || !request.principal) return false;
      let principal: ApiPrincipal | null;
      try {
        principal = await options.lookup(hash);
      } catch (error) {
        request.log.warn({ err: error }, 'API key recheck failed: keeping the answer open');
        return true;
      }
      if (principal?.keyId === request.principal.keyId) {
        known.set(hash, principal, options.cacheTtlMs ?? 10_000);
        return true;
      }
      // Revoked: this process stops accepting it at once, not when its cache entry ends.
      known.delete(hash);
      return false;
    });
    app.addHook('onRequest', async (request) => {
      if (!isPublicApiRoute(request)) return;
      const header = request.headers.authorization;
      const match = header ? /^Bearer\s+(\S{1,512})$/i.exec(header) : null;
      const hash = match ? hashApiKey(match[1]!) : undefined;
      const cached = hash ? known.get(hash) : undefined;
      if (cached) {
        // Known without a lookup: only the key's own count, one round trip.
        request.principal = cached;
        request.credentialHash = hash;
        request.requestCount = await options.limiter.countRequest(cached.keyId);
        return;
      }
      const standing = await options.limiter.standing(request.ip, hash);
      const refuse = async (detail: string): Promise<never> => {
        await options.limiter.recordFailure(request.ip, hash);
        if (standing.addressLimited || standing.credentialLimited) {
          throw tooManyFailures(standing.retryAfterSeconds);
        }
        throw unauthorized(detail);
      };
      if (!header) return refuse('Authorization header is missing; send "Authorization: Bearer <api key>"');
      if (!hash) return refuse('Authorization header must be "Bearer <api key>"');
      // A credential that failed too often is not looked up again; any other is,
      // even from a limited address: a valid key is never locked out by its neighbours.
      const principal = standing.credentialLimited ? null : await lookup(hash);
      if (!principal) return refuse('The API key is unknown or revoked');
      request.principal = principal;
      request.credentialHash = hash;
      request.requestCount = await options.limiter.countRequest(principal.keyId);
    });
  },
  { name: 'hireflow-api-key-auth' },
);

/**
 * The request's principal; public routes always have one. `P` is what the
 * service's `lookup` returns (a principal with more fields), so the cast is
 * the service's promise.
 */
export function principalOf<P extends ApiPrincipal = ApiPrincipal>(request: FastifyRequest): P {
  if (!request.principal) throw new HttpProblem(401, 'UNAUTHORIZED', 'Not authenticated');
  return request.principal as P;
}
