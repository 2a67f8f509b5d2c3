import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from './logger.ts';
import { registerProblemHandlers } from './problem.ts';

export interface HttpServerOptions {
  /** The process's logger; Fastify logs requests through a child of it. */
  log: Logger;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
}

/**
 * A Fastify instance with the project's conventions: zod route schemas,
 * problem+json errors, the process's logger. Not listening.
 */
export function createHttpServer(options: HttpServerOptions) {
  const app = Fastify({
    // Typed as Fastify's own logger interface, so routes and plugins see the usual instance type.
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON APIs: a text/plain body is refused (415) rather than validated as a string (400).
  app.removeContentTypeParser('text/plain');
  registerProblemHandlers(app);
  return app;
}

/** What `createHttpServer` returns: the zod type provider and compilers set. */
export type HttpServer = ReturnType<typeof createHttpServer>;
