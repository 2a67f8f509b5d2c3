import { createHash, timingSafeEqual } from 'node:crypto';
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
  config: Pick<ServiceConfig, 'ADMIN_TOKEN'>,
  deps: Pick<ServiceDeps, 'log'> & Partial<Pick<ServiceDeps, 'metrics' | 'queues'>>,
) {
  // Bull Board's page runs scripts: it keeps its own content security policy.
  const admin = createHttpServer({
    log: deps.log.child({ listener: 'admin' }),
    relaxedCsp: [BULL_BOARD_PATH],
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
      reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    );
  }
  if (queues && queues.length > 0) {
    // Registered now, loaded by ready(): read-only unless a token guards the port.
    void admin.register(async (scope) => registerBullBoard(scope, { queues, readOnly: !config.ADMIN_TOKEN }));
  }
  return admin;
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
