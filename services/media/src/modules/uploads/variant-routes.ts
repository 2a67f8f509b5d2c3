import type { MikroORM } from '@hireflow/db';
import { HttpProblem } from '@hireflow/runtime';
import type { FastifyInstance } from 'fastify';
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
  options: { orm: MikroORM; store: MediaStore },
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
