import type { OpenApiOptions } from '@hireflow/runtime';

/**
 * media's part of the public API. Consumers use the merged document of every
 * public service (docs/api/openapi.json), built from this one and jobs'.
 */
export const mediaOpenApi: OpenApiOptions = {
  title: 'Hireflow media API',
  description:
    'Image uploads: POST /v1/uploads (multipart, 202), poll GET /v1/uploads/{id} until ready; the variants are ' +
    'public at /media/{uploadId}/{variant}.webp. Errors are RFC 9457 application/problem+json.',
};
