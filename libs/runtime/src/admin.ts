import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { ServiceDeps } from './deps.ts';
import { createHttpServer } from './http.ts';
import { BULL_BOARD_PATH, registerBullBoard } from './metrics/bull-board.ts';
import { problem, sendProblem } from './problem.ts';
import type { ServiceConfig } from './service-config.ts';

const REALM = 'hireflow admin';

/**
 * The admin listener of a service (docs/design.md, "Listeners"): its own
 * port, `/metrics`, `/admin/queues` and the `/internal/…` routes a service
 * registers on it. With ADMIN_TOKEN set every request needs it, as a Bearer
 * token (scrapers, scripts) or as the password of HTTP Basic auth (a browser
 * opening Bull Board). Not listening; `runService` binds it to ADMIN_HOST.
 */
export function createAdminServer(
  config: Pick<ServiceConfig, 'ADMIN_TOKEN'> & Partial<Pick<ServiceConfig, 'ADMIN_ALLOWED_HOSTS'>>,
  deps: Pick<ServiceDeps, 'log'> & Partial<Pick<ServiceDeps, 'metrics' | 'queues'>>,
) {
  // Bull Board's page runs scripts: it keeps its own content security policy.
  const admin = createHttpServer({
    log: deps.log.child({ listener: 'admin' }),
    relaxedCsp: [BULL_BOARD_PATH],
  });
  // Before the token: a page in a developer's browser that rebinds its own
  // name to 127.0.0.1 sends that name as Host, and is refused whatever else.
  const allowed = hostAllowed(config.ADMIN_ALLOWED_HOSTS ?? '');
  admin.addHook('onRequest', async (request, reply) => {
    if (allowed(request.headers.host)) return;
    return sendProblem(reply, {
      ...problem(
        403,
        'HOST_NOT_ALLOWED',
        'The admin port answers loopback names, IP addresses and ADMIN_ALLOWED_HOSTS only',
        [{ field: 'host', message: 'is not a name this admin port answers' }],
      ),
      instance: request.url,
    });
  });
  const token = config.ADMIN_TOKEN;
  if (token) {
    const expected = digest(token);
    admin.addHook('onRequest', async (request, reply) => {
      const given = presentedToken(request);
      if (given !== undefined && timingSafeEqual(digest(given), expected)) return;
      reply.header('www-authenticate', [`Basic realm="${REALM}"`, `Bearer realm="${REALM}"`]);
      return sendProblem(reply, {
        ...problem(401, 'UNAUTHORIZED', 'The admin port needs the admin token (Bearer, or Basic password)', [
          { field: 'authorization', message: 'is missing or wrong' },
        ]),
        instance: request.url,
      });
    });
  }
  const { metrics, queues } = deps;
  if (metrics) {
    admin.get('/metrics', { logLevel: 'warn' }, async (_request, reply) =>
      reply.type(metrics.contentType).send(await metrics.text()),
    );
  }
  if (queues && queues.names.length > 0) {
    // Registered now, loaded (with the queue handles) on its first request: read-only unless a token guards the port.
    void admin.register(async (scope) => registerBullBoard(scope, { queues, readOnly: !config.ADMIN_TOKEN }));
  }
  return admin;
}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

/** Whether a Host header names this admin port: a loopback name, an IP address, or a configured name. */
export function hostAllowed(configured: string): (host: string | undefined) => boolean {
  const names = new Set(
    configured
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  return (host) => {
    if (!host) return false;
    const name = host.startsWith('[')
      ? host.slice(1, host.indexOf(']'))
      : host.replace(/:\d+$/, '').toLowerCase();
    return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || isIP(name) !== 0 || names.has(name);
  };
}

/** The token of `Authorization: Bearer <t>` or the password of `Basic base64(user:t)`. */
function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
