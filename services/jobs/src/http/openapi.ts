import { type OpenApiOptions, registerOpenApi } from '@hireflow/runtime';
import type { FastifyInstance } from 'fastify';

/** Where the API reference page is served (its page runs scripts: its own content security policy). */
export const DOCS_PREFIX = '/docs';

/**
 * jobs' part of the public API. Consumers use the merged document of every
 * public service (docs/api/openapi.json), built from this one and media's.
 */
export const jobsOpenApi: OpenApiOptions = {
  title: 'Hireflow jobs API',
  description:
    'Job postings and candidates. Writes answer 202 Accepted with an id to poll (or stream: GET /v1/jobs/{id}/events). ' +
    'Every POST accepts an Idempotency-Key header. Errors are RFC 9457 application/problem+json.',
};

/** OpenAPI 3.1 generated from the route schemas: `/openapi.json`, and `/docs` unless turned off. */
export async function registerJobsOpenApi(
  app: FastifyInstance,
  options: { docsPage: boolean },
): Promise<void> {
  await registerOpenApi(app, jobsOpenApi);
  if (options.docsPage) {
    // Imported here: only an API process serves the page, and the UI's assets weigh (test/role-modules.test.ts).
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    await app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  }
}
