// The media worker path for `pnpm bench media`: a media service of the
// bench's own (embedded emulator with its bucket, database, Redis prefix),
// its API app (in-process, `inject`) and the `resize` BullMQ worker. Two
// measures: the worker draining a batch of accepted uploads (S3 read, the
// limiter, variants, S3 writes, the conditional finish with its outbox row),
// and upload → ready latency at a steady rate with the worker running.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { buildApp } from '@hireflow/media';
import { applyIssued } from '@hireflow/media/api-keys';
import { imageLimitsOf, loadConfig } from '@hireflow/media/config';
import { createImageLimiter } from '@hireflow/media/images';
import { type ResizeOutcome, startResizeWorker } from '@hireflow/media/resize';
import { mediaService } from '@hireflow/media/service';
import { createMediaStore } from '@hireflow/media/storage';
import { provisionTopology } from '@hireflow/ops';
import { connectDeps, createLogger, createSnsClient, createSqsClient, hashApiKey } from '@hireflow/runtime';
import { createS3Client } from '@hireflow/runtime/s3';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const TIMEOUT_MS = 120_000;

export interface WorkerPath {
  /** Uploads each image with the worker paused, then times the worker draining them. */
  drain(images: Buffer[]): Promise<{ latencies: number[]; images: number; seconds: number }>;
  /** Uploads `count` images at `ratePerSecond` with the worker running; upload → ready in ms each. */
  steady(images: Buffer[], count: number, ratePerSecond: number): Promise<number[]>;
  close(): Promise<void>;
}

export async function startWorkerPath(concurrency: number): Promise<WorkerPath> {
  const suffix = randomBytes(4).toString('hex');
  const url = `${SERVER}/hfbench_media_${suffix}`;
  const emulator = await startEmulator({ region: REGION });
  const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
  const clients = { sns: createSnsClient(aws), sqs: createSqsClient(aws), s3: createS3Client(aws) };
  const provisioned = await provisionTopology(topology, { ...clients, prefix: `bench-${suffix}-` });
  await ensureDatabase(url);
  const config = loadConfig({
    DATABASE_URL: url,
    AWS_ENDPOINT_URL: emulator.endpoint,
    HIREFLOW_TOPOLOGY_PREFIX: provisioned.prefix,
    REDIS_PREFIX: `bench:${suffix}`,
    MEDIA_IMAGE_CONCURRENCY: String(concurrency),
    RATE_LIMIT_MAX: '1000000',
    LOG_LEVEL: 'silent',
    ROLE: 'all',
  });
  const deps = await connectDeps(config, {
    service: 'media',
    migrations: mediaService.migrations,
    env: {},
    log: createLogger('media', 'silent'),
  });
  const app = await buildApp(config, deps);
  const key = `hf_${randomBytes(32).toString('base64url')}`;
  await applyIssued(deps.orm.em.fork(), {
    keyId: randomUUID(),
    tenantId: randomUUID(),
    keyHash: hashApiKey(key),
    issuedAt: new Date().toISOString(),
  });
  const finished = new Map<string, number>();
  const worker = startResizeWorker({
    orm: deps.orm,
    store: createMediaStore(createS3Client(deps.aws), deps.names.bucket!),
    limiter: createImageLimiter({ concurrency, timeoutMs: config.MEDIA_IMAGE_TIMEOUT_MS }),
    limits: imageLimitsOf(config),
    publicUrl: config.MEDIA_PUBLIC_URL,
    log: deps.log,
    connection: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    concurrency: config.RESIZE_CONCURRENCY,
    backoff: { base: 1000, cap: 1000 },
    onFinished: (outcome: ResizeOutcome) => {
      if (outcome.status !== 'ready') throw new Error(`upload ${outcome.uploadId} ${outcome.status}`);
      finished.set(outcome.uploadId, performance.now());
    },
  });

  const upload = async (bytes: Buffer): Promise<string> => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'photo');
    const request = new Request('http://bench.test/', { method: 'POST', body: form });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/uploads',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { authorization: `Bearer ${key}`, 'content-type': request.headers.get('content-type')! },
    });
    if (res.statusCode !== 202) throw new Error(`upload answered ${res.statusCode}: ${res.body}`);
    return res.json<{ id: string }>().id;
  };
  const allFinished = async (ids: string[]) => {
    const deadline = Date.now() + TIMEOUT_MS;
    while (!ids.every((id) => finished.has(id))) {
      if (Date.now() > deadline) throw new Error('uploads not ready in time');
      await delay(2);
    }
  };

  return {
    async drain(images) {
      await worker.worker.pause();
      const ids: string[] = [];
      for (let i = 0; i < images.length; i += concurrency) {
        ids.push(...(await Promise.all(images.slice(i, i + concurrency).map(upload))));
      }
      const started = performance.now();
      worker.worker.resume();
      await allFinished(ids);
      const seconds = (performance.now() - started) / 1000;
      return { latencies: ids.map((id) => finished.get(id)! - started), images: ids.length, seconds };
    },
    async steady(images, count, ratePerSecond) {
      const began = new Map<string, number>();
      const uploads: Promise<void>[] = [];
      const start = performance.now();
      for (let i = 0; i < count; i++) {
        await delay(Math.max(0, start + (i * 1000) / ratePerSecond - performance.now()));
        const at = performance.now();
        uploads.push(upload(images[i % images.length]!).then((id) => void began.set(id, at)));
      }
      await Promise.all(uploads);
      const ids = [...began.keys()];
      await allFinished(ids);
      return ids.map((id) => finished.get(id)! - began.get(id)!);
    },
    async close() {
      await worker.close();
      await app.close();
      await deps.close();
      await dropDatabase(url).catch(() => undefined);
      for (const client of Object.values(clients)) client.destroy();
      await emulator.stop();
    },
  };
}
