import multipart from '@fastify/multipart';
import { idempotencyPlugin } from '@hireflow/idempotency';
import { lazyTaskQueue, registerEventLogRoutes } from '@hireflow/messaging';
import {
  type AppState,
  createAdminServer,
  createServiceServer,
  describeRoutes,
  HttpProblem,
  notServed,
  type OpenApiDocument,
  registerOpenApi,
  registerPublicApi,
  type ServiceDeps,
} from '@hireflow/runtime';
import { createS3Client } from '@hireflow/runtime/s3';
import { type Config, imageLimitsOf } from './config.ts';
import { mediaOpenApi } from './http/openapi.ts';
import { registerApiKeyInternalRoutes } from './modules/api-keys/routes.ts';
import { findActiveKey } from './modules/api-keys/store.ts';
import { createMediaStore } from './modules/storage/index.ts';
import { type ResizeTask, resizeTaskOptions } from './modules/uploads/resize-queue.ts';
import { uploadRoutes } from './modules/uploads/routes.ts';
import { registerVariantRoutes } from './modules/uploads/variant-routes.ts';

/**
 * The media service port, ready but not listening (tests use `inject()`):
 * health, `POST /v1/uploads`, `GET /v1/uploads/{id}`, the public variant
 * route `GET /media/{uploadId}/{variant}.webp` and its part of the API
 * document at `/openapi.json`.
 */
export async function buildApp(config: Config, deps: ServiceDeps, state?: AppState) {
  const app = createServiceServer(config, deps, state);
  if (config.ROLE === 'worker') {
    await app.ready();
    return app;
  }
  const limits = imageLimitsOf(config);
  const s3 = createS3Client(deps.aws);
  app.addHook('onClose', async () => s3.destroy());
  const store = createMediaStore(s3, bucketOf(config, deps));

  // Every answer is marked: nothing is sniffed, and API answers are not cached
  // (variants set their own year-long policy).
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  // Uploads are multipart only; any other body is refused with what to send.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, _payload, done) =>
    done(
      new HttpProblem(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Send multipart/form-data with the image in the field "file"',
        {
          errors: [
            {
              field: 'content-type',
              message: `${request.headers['content-type']} is not multipart/form-data`,
            },
          ],
        },
      ),
    ),
  );
  await app.register(multipart, { limits: { fileSize: limits.maxBytes, files: 2 } });
  await registerPublicApi(app, {
    config,
    redis: deps.redis,
    // A key issued a moment ago may still be on its way to the projection: "unknown" is kept briefly.
    auth: { lookup: (hash) => findActiveKey(deps.orm.em.fork(), hash), unknownTtlMs: 1000 },
    // A limited client is refused before its upload is read.
    rateLimitHook: 'preParsing',
    log: deps.log,
  });
  await app.register(idempotencyPlugin, { orm: deps.orm, scope: (request) => request.principal?.tenantId });

  // BullMQ is loaded on the first upload's resize task, not at start (issue 31).
  const queue = lazyTaskQueue<ResizeTask>(
    resizeTaskOptions({
      connection: deps.redis,
      prefix: config.REDIS_PREFIX,
      attempts: config.RESIZE_ATTEMPTS,
      backoff: { base: config.RESIZE_BACKOFF_BASE_MS, cap: config.RESIZE_BACKOFF_CAP_MS },
    }),
  );
  app.addHook('onClose', async () => queue.close());
  await registerOpenApi(app, mediaOpenApi);
  await app.register(uploadRoutes, {
    orm: deps.orm,
    store,
    queue,
    limits,
    quotaBytes: config.MEDIA_TENANT_QUOTA_BYTES,
    unattachedTtlMs: config.MEDIA_UNATTACHED_TTL_MS,
    publicUrl: config.MEDIA_PUBLIC_URL,
    log: deps.log,
  });
  registerVariantRoutes(app, { orm: deps.orm, store });
  await app.ready();
  return app;
}

/**
 * The OpenAPI document of media's public routes, without a database, Redis
 * or S3: the routes are registered as `buildApp` registers them, on an app
 * that never serves them. It equals what a running media serves at
 * `/openapi.json` (tested).
 */
export function describeApi(): Promise<OpenApiDocument> {
  return describeRoutes(mediaOpenApi, async (app) => {
    await app.register(uploadRoutes, {
      orm: notServed('orm'),
      store: notServed('store'),
      queue: notServed('queue'),
      limits: notServed('limits'),
      quotaBytes: 0,
      unattachedTtlMs: 0,
      publicUrl: '',
      log: notServed('log'),
    });
    registerVariantRoutes(app, { orm: notServed('orm'), store: notServed('store') });
  });
}

/**
 * The admin listener: whether media's projection knows an API key (`pnpm
 * start` asks for the demo key), and the events media published (`pnpm replay`).
 */
export async function buildAdmin(config: Config, deps: ServiceDeps) {
  const admin = createAdminServer(config, deps);
  registerApiKeyInternalRoutes(admin, { orm: deps.orm });
  registerEventLogRoutes(admin, { orm: deps.orm });
  await admin.ready();
  return admin;
}

/** MEDIA_BUCKET when set (on AWS, where bucket names are global), else the topology's bucket with the prefix. */
export function bucketOf(config: Pick<Config, 'MEDIA_BUCKET'>, deps: ServiceDeps): string {
  if (config.MEDIA_BUCKET) return config.MEDIA_BUCKET;
  if (!deps.names.bucket) throw new Error('the topology gives media no bucket');
  return deps.names.bucket;
}
