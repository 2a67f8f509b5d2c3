import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** Where the API reference page is served (its page runs scripts: its own content security policy). */
export const DOCS_PREFIX = '/docs';

/** OpenAPI 3.1 generated from the route schemas: `/openapi.json`, and `/docs` unless turned off. */
export async function registerOpenApi(app: FastifyInstance, options: { docsPage: boolean }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hireflow jobs API',
        version: '1.0.0',
        description:
          'Job postings and candidates. Writes answer 202 Accepted with an id to poll (or stream: GET /v1/jobs/{id}/events). ' +
          'Every POST accepts an Idempotency-Key header. Errors are RFC 9457 application/problem+json.',
      },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    hideUntagged: true,
  });
  if (options.docsPage) await app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
