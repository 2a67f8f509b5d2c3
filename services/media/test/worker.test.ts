import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { PermanentError, taskIdFor } from '@hireflow/messaging';
import { createTaskWorker } from '@hireflow/messaging/tasks';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { waitFor } from '@hireflow/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageLimitsOf } from '../src/config.ts';
import { createImageLimiter } from '../src/modules/images/index.ts';
import { resizeProcessor } from '../src/modules/resize/processor.ts';
import { GAVE_UP_REASON, sweepPendingUploads } from '../src/modules/resize/sweep.ts';
import { RESIZE_QUEUE, resizeIntent } from '../src/modules/uploads/resize-queue.ts';
import { png } from './fixtures/images.ts';
import { filePart, useMediaHarness } from './harness.ts';

// The worker's guarantees, with the worker role stopped so each test drives
// the tasks itself: re-runs, races, lost and dead tasks, and the trace.
let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(async () => {
  await tracing?.stop();
});
const h = useMediaHarness('media-worker', { worker: false });

const pendingUpload = async () => {
  const res = await h.upload([filePart(await png(200, 100))]);
  expect(res.statusCode).toBe(202);
  return res.json<{ id: string }>().id;
};

const processor = () =>
  resizeProcessor({
    orm: h.deps.orm,
    store: h.store,
    limiter: createImageLimiter({ concurrency: 2 }),
    limits: imageLimitsOf(h.config),
    publicUrl: h.config.MEDIA_PUBLIC_URL,
    log: h.deps.log,
  });

const objectsOf = async (tenantId: string, uploadId: string) => {
  const listed = await h.s3.send(
    new ListObjectsV2Command({ Bucket: h.store.bucket, Prefix: `uploads/${tenantId}/${uploadId}/` }),
  );
  return (listed.Contents ?? []).map((c) => c.Key!.split('/').at(-1)).sort();
};

describe('the resize task', () => {
  it('run twice, or twice at once, makes one set of variants and one event', async () => {
    const id = await pendingUpload();
    const run = processor();
    const task = { data: { uploadId: id, tenantId: h.tenants.a.tenantId } };
    const [first, second] = await Promise.all([run(task), run(task)]);
    expect([first.changed, second.changed].sort()).toEqual([false, true]);
    expect(await run(task)).toEqual({ uploadId: id, status: 'ready', changed: false });
    expect(await objectsOf(h.tenants.a.tenantId, id)).toEqual(['medium.webp', 'original', 'thumb.webp']);
    const events = await h.events(id);
    expect(events.map((e) => e.type)).toEqual(['media.processed.v1']);
  });

  it('a task added again for a finished upload is a no-op (its id derives from the upload)', async () => {
    const id = await pendingUpload();
    await processor()({ data: { uploadId: id, tenantId: h.tenants.a.tenantId } });
    const again = await h.queue.add(
      'resize',
      { uploadId: id, tenantId: h.tenants.a.tenantId },
      { intentKey: resizeIntent(id) },
    );
    expect(again).toBe(taskIdFor(resizeIntent(id)));
    const waiting = await h.queue.queue.getJobs(['waiting', 'prioritized']);
    expect(waiting.filter((task) => task.data.uploadId === id)).toHaveLength(1);
    await h.startWorker();
    try {
      await waitFor(async () => (await h.taskState(id)) === 'completed', { message: 'task completed' });
      expect(await h.events(id)).toHaveLength(1);
    } finally {
      await h.stopWorker();
    }
  });
});

describe('the pending-upload sweep', () => {
  it('adds the task of an upload whose task was lost, and ends an upload whose task died for good failed', async () => {
    const lost = await pendingUpload();
    await h.queue.queue.remove(taskIdFor(resizeIntent(lost)));
    expect(await h.taskState(lost)).toBeUndefined();

    const dead = await pendingUpload();
    // A worker of the queue whose every attempt fails for good, as an S3 outage outlasting the attempts would.
    const failing = createTaskWorker({
      name: RESIZE_QUEUE,
      connection: h.config.REDIS_URL,
      prefix: h.config.REDIS_PREFIX,
      processor: async () => {
        throw new PermanentError('storage unavailable');
      },
    });
    try {
      await waitFor(async () => (await h.taskState(dead)) === 'failed', { message: 'task failed' });
    } finally {
      await failing.close();
    }

    const swept = await sweepPendingUploads(h.deps.orm.em.fork(), h.queue, { olderThanMs: 0 });
    expect(swept.requeued).toContain(lost);
    expect(swept.failed).toContain(dead);
    expect(swept.requeued).not.toContain(dead);
    expect(await h.taskState(lost)).toBe('prioritized'); // waiting in its lane (docs/fairness.md)
    const gaveUp = await h.waitForFinished(dead);
    expect(gaveUp).toMatchObject({ status: 'failed', reason: GAVE_UP_REASON });
    expect((await h.events(dead)).map((e) => e.type)).toEqual(['media.failed.v1']);
    // Swept again: nothing left to do for either.
    const again = await sweepPendingUploads(h.deps.orm.em.fork(), h.queue, { olderThanMs: 0 });
    expect([...again.requeued, ...again.failed]).not.toContain(dead);
    expect(again.requeued).not.toContain(lost);

    await h.startWorker();
    try {
      expect((await h.waitForFinished(lost)).status).toBe('ready');
    } finally {
      await h.stopWorker();
    }
  });
});

describe('tracing', () => {
  it("puts the enqueue, the task and a resize span with the sizes in the request's trace", async () => {
    tracing.exporter.reset();
    const tracer = trace.getTracer('test');
    const id = await tracer.startActiveSpan('POST /v1/uploads', async (span) => {
      try {
        return await pendingUpload();
      } finally {
        span.end();
      }
    });
    await h.startWorker();
    try {
      await h.waitForFinished(id);
    } finally {
      await h.stopWorker();
    }
    const spans = tracing.exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === 'POST /v1/uploads')!;
    const inTrace = spans.filter((s) => s.spanContext().traceId === request.spanContext().traceId);
    const named = (prefix: string) => {
      const span = inTrace.find((s) => s.name.startsWith(prefix));
      if (!span) throw new Error(`no ${prefix} span in ${inTrace.map((s) => s.name)}`);
      return span;
    };
    const parentOf = (span: (typeof spans)[number]) => span.parentSpanContext?.spanId;
    // request → enqueue (producer) → the worker's task (consumer) → resize, and the event's publish
    const enqueue = named('add resize');
    const task = named('process resize');
    const resize = named('resize');
    expect(parentOf(enqueue)).toBe(request.spanContext().spanId);
    expect(parentOf(task)).toBe(enqueue.spanContext().spanId);
    expect(parentOf(resize)).toBe(task.spanContext().spanId);
    expect(parentOf(named(`publish ${h.topology.prefix}media-events`))).toBe(task.spanContext().spanId);
    expect(resize.attributes).toMatchObject({
      'image.input.format': 'png',
      'image.input.bytes': expect.any(Number),
      'image.input.width': 200,
      'image.input.height': 100,
      'image.medium.width': 200,
      'image.medium.height': 100,
      'image.medium.bytes': expect.any(Number),
      'image.thumb.width': 128,
      'image.thumb.height': 64,
      'image.thumb.bytes': expect.any(Number),
    });
  });
});
