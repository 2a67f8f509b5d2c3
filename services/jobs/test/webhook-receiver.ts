import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as a receiver verifies it. */
  body: string;
  at: number;
}

/** What the receiver answers a request (`path` is the URL path it came to). */
export type Responder = (request: Received, res: ServerResponse) => void | Promise<void>;

export interface Receiver {
  /** The receiver's base URL (http://127.0.0.1:<port>). */
  url: string;
  received: Received[];
  /** Requests to one path. */
  to(path: string): Received[];
  /** TCP connections accepted so far (a sender that keeps them alive opens fewer than it sends requests). */
  connections(): number;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that keeps every request and answers as `respond` says (204 by default). */
export async function startReceiver(
  respond: Responder = (_r, res) => void res.writeHead(204).end(),
): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      void respond(request, res);
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    to: (path) => received.filter((r) => r.path === path),
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
