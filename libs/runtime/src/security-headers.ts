import type { FastifyInstance } from 'fastify';

/** What every response says unless its route said otherwise (docs/security.md, API8). */
const DEFAULTS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  // An API answers JSON: nothing in it may load or run anything.
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  // Answers about a tenant's data must not sit in a shared cache; a route
  // that serves public, immutable bytes (media variants) sets its own.
  'cache-control': 'no-store',
};

/**
 * Security headers on every response (what @fastify/helmet would set for an
 * API, in a dozen lines we can read), each only where the route did not set
 * it. `relaxed` paths (the API docs page, which runs scripts) keep their
 * own content security policy.
 */
export function registerSecurityHeaders(app: FastifyInstance, options: { relaxed?: string[] } = {}): void {
  const relaxed = options.relaxed ?? [];
  app.addHook('onSend', async (request, reply, payload) => {
    const isRelaxed = relaxed.some((prefix) => request.url.startsWith(prefix));
    for (const [name, value] of Object.entries(DEFAULTS)) {
      if (isRelaxed && name === 'content-security-policy') continue;
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    return payload;
  });
}
