import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from './logger.ts';
import { problem, registerProblemHandlers, sendProblem } from './problem.ts';
import { registerSecurityHeaders } from './security-headers.ts';

export interface HttpServerOptions {
  /** The process's logger; Fastify logs requests through a child of it. */
  log: Logger;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /** Longest a client may take to send a whole request (default 30 s): a trickled body is cut. */
  requestTimeoutMs?: number;
  /** Whose X-Forwarded-For to believe for `request.ip` (default: nobody's, the socket's address). */
  trustProxy?: boolean | string[] | ((address: string, hop: number) => boolean);
  /** Paths whose pages keep their own content security policy (the API docs). */
  relaxedCsp?: string[];
}

/**
 * What Node finds wrong before a request exists (headers too large, a
 * request too slow, a malformed request line), answered as problem+json
 * like every other error, on the raw socket, which is then closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts (16 KiB)']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'The request took too long to arrive']
        : [400, 'BAD_REQUEST', 'The request is not valid HTTP'];
  const body = JSON.stringify(problem(status, code, detail));
  if (socket.writable) {
    const head = `HTTP/1.1 ${status} ${problem(status, code).title}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n`;
    socket.write(head + body);
  }
  socket.destroy(error);
}

/**
 * A Fastify instance with the project's conventions: zod route schemas,
 * problem+json errors, the process's logger. Not listening.
 */
export function createHttpServer(options: HttpServerOptions) {
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const fastifyOptions: FastifyServerOptions = {
    // Typed as Fastify's own logger interface, so routes and plugins see the usual instance type.
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A client that trickles its request is cut off (408) instead of holding a
    // socket for minutes. Node checks request deadlines only every
    // connectionsCheckingInterval (30 s by default): check often enough.
    serverFactory: (handler) =>
      createServer(
        {
          requestTimeout: requestTimeoutMs,
          connectionsCheckingInterval: Math.min(5000, Math.max(250, Math.floor(requestTimeoutMs / 4))),
        },
        handler,
      ),
    requestTimeout: requestTimeoutMs,
    connectionTimeout: Math.max(10_000, requestTimeoutMs),
    trustProxy: options.trustProxy ?? false,
    clientErrorHandler: answerClientError,
    // Errors Fastify finds before routing (a URL it cannot decode) answer problem+json too.
    frameworkErrors: (error, request, reply) => {
      sendProblem(reply, {
        ...problem(400, 'BAD_REQUEST', `The request could not be routed: ${error.message}`),
        instance: request.url,
      });
    },
  };
  const app = Fastify(fastifyOptions).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON APIs: a text/plain body is refused (415) rather than validated as a string (400).
  app.removeContentTypeParser('text/plain');
  registerProblemHandlers(app);
  registerSecurityHeaders(app, { relaxed: options.relaxedCsp ?? [] });
  return app;
}

/** What `createHttpServer` returns: the zod type provider and compilers set. */
export type HttpServer = ReturnType<typeof createHttpServer>;
