import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in HTTP endpoint for a test, a bench or the chaos soak to point a
// process at: a webhook receiver, an OTLP sink, a service that never answers.

export interface LocalHttpServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  server: Server;
  /** Drops every open connection (keep-alive ones, answers still streaming, requests never answered) and waits for the server to close. */
  close(): Promise<void>;
}

/**
 * An HTTP server on a free loopback port, answering with `handler`. A handler
 * that throws or rejects (a request dropped while `readBody` read it) has its
 * connection destroyed: the sender sees the failure.
 */
export async function startLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<LocalHttpServer> {
  const server = createServer((req, res) => {
    new Promise<void>((resolve) => resolve(handler(req, res))).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request's whole body; rejects when the sender drops the request before its end. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
