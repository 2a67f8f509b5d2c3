import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readBody, startLocalServer } from '@hireflow/testing';

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
  const server = await startLocalServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const request = { path: req.url ?? '/', headers: req.headers, body, at: Date.now() };
    received.push(request);
    await respond(request, res);
  });
  let connections = 0;
  server.server.on('connection', () => connections++);
  return {
    url: server.url,
    received,
    to: (path) => received.filter((r) => r.path === path),
    connections: () => connections,
    close: server.close,
  };
}
