import { randomBytes, randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { AnyEvent, CloudEvent, EventType } from '@hireflow/contracts';
import { topicOf } from '@hireflow/contracts';
import { buildAdmin, buildApp } from '@hireflow/media';
import { type Config, loadConfig } from '@hireflow/media/config';
import { createMediaStore, type MediaStore } from '@hireflow/media/storage';
import { startWorker } from '@hireflow/media/worker';
import { SnsPublisher, taskIdFor } from '@hireflow/messaging';
import { createTaskQueue, type TaskQueue } from '@hireflow/messaging/tasks';
import { HandlerSpy } from '@hireflow/messaging/testing';
import type { ProvisionedTopology } from '@hireflow/ops';
import { type Closeable, hashApiKey, type ServiceDeps } from '@hireflow/runtime';
import { createS3Client } from '@hireflow/runtime/s3';
import { type TestDatabase, waitFor } from '@hireflow/testing';
import { connectServiceUnderTest, useHarness } from '@hireflow/testing/service';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { migrations } from '../src/db/schema.ts';
import { applyIssued } from '../src/modules/api-keys/store.ts';
import type { ResizeOutcome } from '../src/modules/resize/processor.ts';
import { type ResizeTask, resizeIntent, resizeTaskOptions } from '../src/modules/uploads/resize-queue.ts';

export const PUBLIC_URL = 'http://media.test:8080';

export interface Tenant {
  tenantId: string;
  keyId: string;
  key: string;
  auth: { authorization: string };
}

export interface FormPart {
  name: string;
  data: Buffer | string;
  filename?: string;
  contentType?: string;
}

export interface MediaHarness {
  db: TestDatabase;
  topology: ProvisionedTopology;
  env: Record<string, string>;
  config: Config;
  deps: ServiceDeps;
  app: FastifyInstance;
  admin: FastifyInstance;
  store: MediaStore;
  /** The harness's S3 client (the one its store uses). */
  s3: S3Client;
  /** The resize queue, for inspection and re-adding jobs. */
  queue: TaskQueue<ResizeTask>;
  tenants: { a: Tenant; b: Tenant };
  spy: HandlerSpy;
  resized: ResizeOutcome[];
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  publish(event: CloudEvent): Promise<void>;
  /** POST /v1/uploads with these form parts. */
  upload(
    parts: FormPart[],
    headers?: Record<string, string>,
    tenant?: Tenant,
  ): Promise<LightMyRequestResponse>;
  /** Waits until the upload is finished (ready or failed); returns GET /v1/uploads/{id}. */
  waitForFinished(id: string, tenant?: Tenant): Promise<UploadView>;
  /** The events about this upload in media's outbox. */
  events(uploadId: string): Promise<AnyEvent[]>;
  taskState(uploadId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface UploadView {
  id: string;
  status: 'pending' | 'ready' | 'failed';
  reason?: string;
  ownerType?: string;
  ownerId?: string;
  uploadedAt: string;
  variants: { name: string; width: number; height: number; contentType: string; url: string }[];
}

/** A multipart/form-data body as a browser or curl would send it. */
export async function formBody(parts: FormPart[]): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  for (const part of parts) {
    if (part.filename === undefined && typeof part.data === 'string') form.append(part.name, part.data);
    else {
      const blob = new Blob([part.data], { type: part.contentType ?? 'application/octet-stream' });
      form.append(part.name, blob, part.filename ?? 'upload.bin');
    }
  }
  const request = new Request('http://form.test/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

/** The image part: field `file` unless said otherwise. */
export const filePart = (data: Buffer, overrides: Partial<FormPart> = {}): FormPart => ({
  name: 'file',
  data,
  filename: 'logo.png',
  contentType: 'image/png',
  ...overrides,
});

/**
 * A media service of the test's own: database, topology prefix (with its
 * bucket), Redis prefix; its API app and admin listener built, two tenants
 * whose keys are in the projection, the worker role ready to start here.
 */
export async function startMediaHarness(label: string, envOverrides: Record<string, string> = {}) {
  const service = await connectServiceUnderTest({
    service: 'media',
    label,
    loadConfig,
    migrations,
    env: {
      ROLE: 'all',
      MEDIA_PUBLIC_URL: PUBLIC_URL,
      RESIZE_BACKOFF_BASE_MS: '100',
      RESIZE_BACKOFF_CAP_MS: '1000',
      ...envOverrides,
    },
  });
  const { db, topology, env, config, deps } = service;
  const app = await buildApp(config, deps);
  const admin = await buildAdmin(config, deps);
  const s3 = createS3Client(deps.aws);
  const store = createMediaStore(s3, deps.names.bucket!);
  const queue = createTaskQueue<ResizeTask>(
    resizeTaskOptions({
      connection: deps.redis,
      prefix: config.REDIS_PREFIX,
      attempts: 1,
      backoff: { base: 100, cap: 100 },
    }),
  );
  const publisher = new SnsPublisher(deps.sns);
  const spy = new HandlerSpy();
  const resized: ResizeOutcome[] = [];
  let worker: Closeable[] = [];

  const tenant = async (): Promise<Tenant> => {
    const key = `hf_${randomBytes(32).toString('base64url')}`;
    const issued = { keyId: randomUUID(), tenantId: randomUUID(), keyHash: hashApiKey(key) };
    await applyIssued(deps.orm.em.fork(), { ...issued, issuedAt: new Date().toISOString() });
    return { ...issued, key, auth: { authorization: `Bearer ${key}` } };
  };
  const tenants = { a: await tenant(), b: await tenant() };
  const stopWorker = async () => {
    const running = worker;
    worker = [];
    for (const part of running) await part.close();
  };
  const get = (id: string, who: Tenant) =>
    app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: who.auth });

  const harness: MediaHarness = {
    db,
    topology,
    env,
    config,
    deps,
    app,
    admin,
    store,
    s3,
    queue,
    tenants,
    spy,
    resized,
    startWorker: async () => {
      if (worker.length > 0) return;
      worker = await startWorker(config, deps, {
        onMessage: spy.observer,
        onResized: (o) => resized.push(o),
      });
    },
    stopWorker,
    publish: async (event) => {
      await publisher.publish(topology.topics[topicOf(event.type as EventType)]!.arn, event);
    },
    upload: async (parts, headers = {}, who = tenants.a) => {
      const { payload, contentType } = await formBody(parts);
      return app.inject({
        method: 'POST',
        url: '/v1/uploads',
        payload,
        headers: { ...who.auth, 'content-type': contentType, ...headers },
      });
    },
    waitForFinished: (id, who = tenants.a) =>
      waitFor(
        async () => {
          const view = (await get(id, who)).json<UploadView>();
          return view.status === 'pending' ? undefined : view;
        },
        { timeoutMs: 30_000, intervalMs: 50, message: `upload ${id} finished` },
      ),
    events: async (uploadId) =>
      (
        await deps.orm.em
          .fork()
          .execute<{ payload: AnyEvent }[]>(
            "SELECT payload FROM outbox WHERE payload->>'subject' = ? ORDER BY id",
            [uploadId],
          )
      ).map((row) => row.payload),
    taskState: async (uploadId) => {
      const task = await queue.queue.getJob(taskIdFor(resizeIntent(uploadId)));
      return task ? await task.getState() : undefined;
    },
    close: async () => {
      await stopWorker();
      await app.close();
      await admin.close();
      await queue.queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      s3.destroy();
      await service.close();
    },
  };
  return harness;
}

/** The harness of one test file, started before its tests (worker role in this process unless `worker: false`). */
export function useMediaHarness(
  label: string,
  options: { worker?: boolean; env?: Record<string, string> } = {},
): MediaHarness {
  return useHarness(
    async () => {
      const harness = await startMediaHarness(label, options.env);
      if (options.worker !== false) await harness.startWorker();
      return harness;
    },
    (harness) => harness.close(),
  );
}
