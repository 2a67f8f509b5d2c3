import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createMediaStore } from '@hireflow/media/storage';
import type { TaskWorker } from '@hireflow/messaging/tasks';
import { createS3Client } from '@hireflow/runtime/s3';
import { startTcpProxy, type TcpProxy, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageLimitsOf } from '../src/config.ts';
import { createImageLimiter } from '../src/modules/images/index.ts';
import { type ResizeOutcome, startResizeWorker } from '../src/modules/resize/processor.ts';
import { sweepPendingUploads } from '../src/modules/resize/sweep.ts';
import type { ResizeTask } from '../src/modules/uploads/resize-queue.ts';
import { png } from './fixtures/images.ts';
import { filePart, useMediaHarness } from './harness.ts';

// An S3 outage while an upload waits for its resize (docs/design.md,
// "Dependencies that are only unavailable"). The review cut S3 for 140 s
// against production defaults (8 attempts, backoff from 1 s: failed for good
// at +50 s, the upload ended `failed`). Here the BullMQ retry budget is
// scaled down instead: RESIZE_ATTEMPTS=3 with the harness's backoff (base
// 100 ms, cap 1 s) is at most 100 + 200 ms of waits, and the cut lasts
// CUT_MS = 15 s, far more than that whole budget.

const CUT_MS = 15_000;
const h = useMediaHarness('media-s3-outage', { worker: false, env: { RESIZE_ATTEMPTS: '3' } });

let proxy: TcpProxy;
let resizer: TaskWorker<ResizeTask, ResizeOutcome> | undefined;
beforeAll(async () => {
  proxy = await startTcpProxy({ port: Number(new URL(h.config.AWS_ENDPOINT_URL!).port) });
});
afterAll(async () => {
  proxy?.restore();
  await resizer?.close();
  await proxy?.close();
});

describe('an S3 cut longer than the BullMQ retry budget, during a resize', () => {
  it('is waited out: the upload gets its variants and no media.failed.v1', async () => {
    const res = await h.upload([filePart(await png(300, 200))]);
    expect(res.statusCode).toBe(202);
    const id = res.json<{ id: string }>().id;

    // The resize worker reaches S3 through the proxy; the test reads it directly.
    const s3 = createS3Client({
      region: h.config.AWS_REGION,
      endpoint: `http://127.0.0.1:${proxy.port}`,
      dummyCredentials: true,
    });
    proxy.cut();
    const cutAt = Date.now();
    setTimeout(() => proxy.restore(), CUT_MS);
    resizer = startResizeWorker({
      orm: h.deps.orm,
      store: createMediaStore(s3, h.store.bucket),
      limiter: createImageLimiter({ concurrency: 2 }),
      limits: imageLimitsOf(h.config),
      publicUrl: h.config.MEDIA_PUBLIC_URL,
      log: h.deps.log,
      connection: h.config.REDIS_URL,
      prefix: h.config.REDIS_PREFIX,
      concurrency: 2,
      backoff: { base: h.config.RESIZE_BACKOFF_BASE_MS, cap: h.config.RESIZE_BACKOFF_CAP_MS },
    });

    // The sweep runs as the worker role's housekeeping would, all along the cut.
    let swept = { requeued: [] as string[], failed: [] as string[] };
    const view = await waitFor(
      async () => {
        const s = await sweepPendingUploads(h.deps.orm.em.fork(), h.queue, { olderThanMs: 0 });
        swept = { requeued: [...swept.requeued, ...s.requeued], failed: [...swept.failed, ...s.failed] };
        const upload = (
          await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: h.tenants.a.auth })
        ).json<{ status: string; variants: { name: string }[] }>();
        return upload.status === 'pending' ? undefined : upload;
      },
      { timeoutMs: 180_000, intervalMs: 500, message: `upload ${id} finished after the cut` },
    );
    expect(view.status).toBe('ready');
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(CUT_MS);
    expect(proxy.stats.refused).toBeGreaterThan(0);
    expect(view.variants.map((v) => v.name).sort()).toEqual(['medium', 'thumb']);
    expect(swept.failed).not.toContain(id);
    expect((await h.events(id)).map((e) => e.type)).toEqual(['media.processed.v1']);
    const listed = await h.s3.send(
      new ListObjectsV2Command({ Bucket: h.store.bucket, Prefix: `uploads/${h.tenants.a.tenantId}/${id}/` }),
    );
    expect((listed.Contents ?? []).map((c) => c.Key!.split('/').at(-1)).sort()).toEqual([
      'medium.webp',
      'original',
      'thumb.webp',
    ]);
    expect(await h.queue.deadLetterCount()).toBe(0);
    s3.destroy();
  }, 300_000);
});
