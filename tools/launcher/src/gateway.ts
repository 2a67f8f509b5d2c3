// The public API's one base URL for `pnpm start`: a small reverse proxy that
// sends each request to the service that answers its path (the routing
// table of the AWS load balancer, libs/contracts/src/public-routes.ts). It
// streams bodies both ways as they come (uploads, Server-Sent Events) and
// adds nothing but the client's address to X-Forwarded-For, as the load
// balancer does (the services trust it from loopback: TRUST_PROXY): no
// other header, no retry, no cache. A client that trickles its headers is
// cut off after HEADERS_TIMEOUT_MS, one that trickles its request after the
// services' own request timeout.
import { Agent, createServer, type IncomingHttpHeaders, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PublicService, routeOf } from '@hireflow/contracts';

export interface Gateway {
  /** `http://127.0.0.1:<port>`: the base URL clients use. */
  url: string;
  /** Where each service listens; until it is set, requests for it answer 503. */
  setTargets(targets: Partial<Record<PublicService, string>>): void;
  stop(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.includes(name)),
  );
}

function sendProblem(res: ServerResponse, status: number, code: string, detail: string): void {
  const title = { 404: 'Not Found', 502: 'Bad Gateway', 503: 'Service Unavailable' }[status] ?? 'Error';
  const body = JSON.stringify({
    type: `https://hireflow.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    title,
    status,
    code,
    detail,
  });
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...(status === 503 ? { 'retry-after': '1' } : {}),
  });
  res.end(body);
}

/** Longest a client may take to send its request headers (Node's default is a minute). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Longest a client may take to send its whole request: the services' HTTP_REQUEST_TIMEOUT_MS default. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The request's headers for the service: hop-by-hop ones dropped, the client's address appended to X-Forwarded-For. */
function forwarded(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string | undefined } }) {
  const headers = endToEnd(req.headers);
  const client = req.socket.remoteAddress;
  if (!client) return headers;
  const before = headers['x-forwarded-for'];
  const chain = Array.isArray(before) ? before.join(', ') : before;
  return { ...headers, 'x-forwarded-for': chain ? `${chain}, ${client}` : client };
}

/** Starts the gateway on 127.0.0.1:`port` (0: a free one). */
export async function startGateway(options: {
  port: number;
  host?: string;
  headersTimeoutMs?: number;
}): Promise<Gateway> {
  const targets: Partial<Record<PublicService, URL>> = {};
  const agent = new Agent({ keepAlive: true });
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Node checks those deadlines only this often (30 s by default).
      connectionsCheckingInterval: 1000,
    },
    (req, res) => {
      const path = req.url ?? '/';
      const service = routeOf(path);
      if (!service) {
        sendProblem(res, 404, 'NOT_FOUND', `No public route for ${req.method} ${path.split('?', 1)[0]}`);
        return;
      }
      const target = targets[service];
      if (!target) {
        sendProblem(res, 503, 'STARTING', `${service} is not listening yet`);
        return;
      }
      const upstream = request(
        {
          agent,
          hostname: target.hostname,
          port: target.port,
          method: req.method,
          path,
          headers: forwarded(req),
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
          answer.pipe(res);
          answer.once('error', () => res.destroy());
        },
      );
      upstream.once('error', (error) => {
        if (res.headersSent) res.destroy();
        else sendProblem(res, 502, 'BAD_GATEWAY', `${service} did not answer (${error.message})`);
      });
      // A client that leaves (a closed status stream, an aborted upload) closes the upstream request too.
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setTargets(next) {
      for (const [service, url] of Object.entries(next)) {
        if (url) targets[service as PublicService] = new URL(url);
      }
    },
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open streams (SSE) would keep close() waiting for ever.
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}
