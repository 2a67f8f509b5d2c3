import type { Database } from '@hireflow/db';
import { HttpProblem } from '@hireflow/runtime';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { VARIANT_SPECS } from '../images/index.ts';
import {
  type MediaStore,
  publicVariantHeaders,
  VARIANT_CACHE_CONTROL,
  variantKey,
} from '../storage/index.ts';
import { readyUploadTenant } from './store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FILES = new Map(VARIANT_SPECS.map((spec) => [`${spec.name}.webp`, spec.name]));
const MAX_CACHED = 10_000;

/**
 * `GET /media/{uploadId}/{thumb|medium}.webp`: a ready upload's variant,
 * without an API key (pages and emails show it through `<img>`, which sends
 * none; the upload id is a random UUID). It serves nothing else: the id must
 * be a lowercase UUID of a ready upload, the file one of the variant names,
 * and the S3 key is built from the upload's own row (never from the path), so
 * no original and no other tenant's object can be reached.
 */
export function registerVariantRoutes(
  app: FastifyInstance,
  options: { orm: Database; store: MediaStore },
): void {
  // A ready upload stays ready under the same tenant: its lookup can be kept.
  const tenants = new Map<string, string>();
  const tenantOf = async (uploadId: string) => {
    const cached = tenants.get(uploadId);
    if (cached) return cached;
    const tenantId = await readyUploadTenant(options.orm.em.fork(), uploadId);
    if (tenantId) {
      if (tenants.size >= MAX_CACHED) tenants.clear();
      tenants.set(uploadId, tenantId);
    }
    return tenantId;
  };

  app.get<{ Params: { uploadId: string; file: string } }>(
    '/media/:uploadId/:file',
    { schema: variantDocument },
    async (request, reply) => {
      const { uploadId, file } = request.params;
      const variant = FILES.get(file);
      const tenantId = variant && UUID.test(uploadId) ? await tenantOf(uploadId) : undefined;
      if (!variant || !tenantId) throw notFound(request.url);
      const ifNoneMatch = request.headers['if-none-match'];
      const got = await options.store.get(variantKey({ tenantId, uploadId }, variant), {
        ...(ifNoneMatch ? { ifNoneMatch } : {}),
      });
      if (got.status === 'missing') throw notFound(request.url);
      if (got.status === 'not-modified') {
        return reply.code(304).headers({ etag: got.etag, 'cache-control': VARIANT_CACHE_CONTROL }).send();
      }
      return reply.headers(publicVariantHeaders(got.object)).send(got.body);
    },
  );
}

const notFound = (url: string) => new HttpProblem(404, 'NOT_FOUND', `No image at ${url}`);

const binary = { type: 'string', format: 'binary' };
const header = (description: string) => ({ type: 'string', description });

// Documentation only: the route checks its path itself (anything else is a
// 404) and sends bytes no schema serializes.
const variantDocument = {
  operationId: 'getUploadVariant',
  tags: ['uploads'],
  summary: "Get an image variant's bytes",
  description:
    'What `variants[].url` of a ready upload points to: the WebP bytes, without an API key (an `<img>` ' +
    'sends none; the upload id is a random UUID). Follow the URL the API gives rather than building it. ' +
    'Cached for a year (immutable), with an ETag: `If-None-Match` answers 304. HEAD answers the headers alone.',
  security: [],
  documentedAs: {
    url: '/media/{uploadId}/{variant}.webp',
    params: z.object({
      uploadId: z.uuid().describe('The upload id (a ready upload)'),
      variant: z.enum(['thumb', 'medium']).describe('thumb (at most 128 px) or medium (at most 512 px)'),
    }),
    headers: z.object({
      'if-none-match': z.string().optional().describe('The ETag of a copy the client has'),
    }),
    responses: {
      200: {
        description: 'The image',
        headers: {
          etag: header("The bytes' version, for If-None-Match"),
          'cache-control': header('public, max-age=31536000, immutable'),
          'last-modified': header('When the variant was written'),
        },
        content: { 'image/webp': { schema: binary } },
      },
      304: {
        type: 'null',
        description: 'Not Modified: the If-None-Match ETag is current',
        headers: { etag: header('The current ETag') },
      },
      404: {
        description: 'No such variant: not a ready upload, or not one of the variant names',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    },
  },
};
