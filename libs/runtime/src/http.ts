import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type HealthOptions, registerHealthRoutes } from './health.ts';
import { loggerOptions } from './logger.ts';
import { registerProblemHandlers } from './problem.ts';

export interface HttpServerOptions {
  service: string;
  logLevel: string;
  health: HealthOptions;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
}

/**
 * A Fastify instance with the project's conventions: zod route schemas,
 * problem+json errors, health routes, pino logs. Not listening.
 */
export function createHttpServer(options: HttpServerOptions) {
  const app = Fastify({
    logger: loggerOptions(options.service, options.logLevel),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerProblemHandlers(app);
  registerHealthRoutes(app, options.health);
  return app;
}
