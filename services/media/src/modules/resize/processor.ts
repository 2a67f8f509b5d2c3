import type { Database } from '@hireflow/db';
import { type Logger, PermanentError } from '@hireflow/messaging';
import { createTaskWorker, type TaskWorker, type TaskWorkerOptions } from '@hireflow/messaging/tasks';
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import type { StoredVariant } from '../../db/upload-types.ts';
import {
  type ImageLimiter,
  type ImageLimits,
  isImageError,
  makeVariants,
  type VariantsResult,
} from '../images/index.ts';
import { type MediaStore, originalKey } from '../storage/index.ts';
import { RESIZE_QUEUE, type ResizeTask } from '../uploads/resize-queue.ts';
import { finishFailed, finishReady } from '../uploads/service.ts';
import { findUploadById } from '../uploads/store.ts';

export interface ResizeOutcome {
  uploadId: string;
  status: 'pending' | 'ready' | 'failed';
  /** False when the upload was already finished (a redelivered or re-run task): nothing written, nothing emitted. */
  changed: boolean;
}

export interface ResizeOptions {
  /** Resizes of one tenant running at once across all workers (0: no limit; docs/fairness.md). */
  tenantConcurrency?: number;
  /** Slots beyond the concurrency for a resize that jumps a line (docs/fairness.md). */
  headroom?: number;
  orm: Database;
  store: MediaStore;
  limiter: ImageLimiter;
  limits: ImageLimits;
  publicUrl: string;
  log: Logger;
  /** Observes every finished task (tests, the bench). */
  onFinished?: (outcome: ResizeOutcome) => void;
}

const tracer = trace.getTracer('@hireflow/media');

/**
 * One resize task: check the upload's state before acting, make the variants
 * (at most the limiter's number of images at once), write them to S3, then
 * finish with a conditional write that also emits the event. A redelivered
 * or re-run task finds the upload finished and does nothing; two running at
 * once write the same keys with the same bytes and only one finishes (one
 * set, one event). A bad image is no failure of the task: the upload ends
 * `failed` with its reason on the first attempt. Anything else (S3,
 * Postgres) throws and is retried with full-jitter backoff.
 */
export function resizeProcessor(options: ResizeOptions) {
  const { orm, store, limiter, limits, publicUrl } = options;
  return async (task: { data: ResizeTask }): Promise<ResizeOutcome> => {
    const { uploadId } = task.data;
    const em = orm.em.fork();
    const upload = await findUploadById(em, uploadId);
    if (!upload) throw new PermanentError(`no upload ${uploadId}: a task without its row`);
    const done = (status: ResizeOutcome['status'], changed: boolean) => {
      const outcome = { uploadId, status, changed };
      options.onFinished?.(outcome);
      return outcome;
    };
    if (upload.status !== 'pending') return done(upload.status, false);

    const ref = { tenantId: upload.tenantId, uploadId };
    const original = await store.getBytes(originalKey(ref));
    if (!original) {
      return done('failed', await finishFailed(em, upload, 'the uploaded file is missing from storage'));
    }
    let made: VariantsResult;
    try {
      made = await limiter.run((signal) =>
        traced(original, (span) => resize(span, original, limits, signal)),
      );
    } catch (error) {
      if (!isImageError(error)) throw error;
      options.log.info({ uploadId, code: error.code }, 'upload failed: bad image');
      return done('failed', await finishFailed(em, upload, error.reason));
    }
    await Promise.all(made.variants.map((variant) => store.putVariant(ref, variant)));
    const variants: StoredVariant[] = made.variants.map(({ bytes, ...variant }) => ({
      ...variant,
      bytes: bytes.length,
    }));
    return done('ready', await finishReady(em, upload, variants, publicUrl));
  };
}

/** The `resize` span: input format and sizes, each variant's sizes; no file names, no content. */
function traced<T>(original: Buffer, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan('resize', async (span) => {
    span.setAttribute('image.input.bytes', original.length);
    try {
      return await work(span);
    } catch (error) {
      span.setAttribute('image.error', isImageError(error) ? error.code : 'INTERNAL');
      span.setStatus({ code: SpanStatusCode.ERROR, message: isImageError(error) ? error.code : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

async function resize(
  span: Span,
  original: Buffer,
  limits: ImageLimits,
  signal: AbortSignal,
): Promise<VariantsResult> {
  const made = await makeVariants(original, { limits, signal });
  span.setAttributes({
    'image.input.format': made.source.format,
    'image.input.width': made.source.orientedWidth,
    'image.input.height': made.source.orientedHeight,
    'image.input.frames': made.source.frames,
  });
  for (const variant of made.variants) {
    span.setAttributes({
      [`image.${variant.name}.width`]: variant.width,
      [`image.${variant.name}.height`]: variant.height,
      [`image.${variant.name}.bytes`]: variant.bytes.length,
    });
  }
  return made;
}

export interface ResizeWorkerOptions extends ResizeOptions {
  /** Redis URL: the worker opens (and quits) its own blocking connection. */
  connection: string;
  prefix: string;
  /** Tasks at once; the limiter bounds the images decoded at once below it. */
  concurrency: number;
  backoff: { base: number; cap: number };
}

/** The BullMQ worker of the `resize` queue. */
export function startResizeWorker(options: ResizeWorkerOptions): TaskWorker<ResizeTask, ResizeOutcome> {
  const processor: TaskWorkerOptions<ResizeTask, ResizeOutcome>['processor'] = resizeProcessor(options);
  return createTaskWorker<ResizeTask, ResizeOutcome>({
    name: RESIZE_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    headroom: options.headroom ?? 0,
    backoff: options.backoff,
    logger: options.log,
    tracerName: '@hireflow/media',
    processor,
    ...(options.tenantConcurrency
      ? { tenantLimit: { max: options.tenantConcurrency, tenantOf: (task: ResizeTask) => task.tenantId } }
      : {}),
  });
}
