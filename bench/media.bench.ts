// Image variants: the media core (`makeVariants` through the image limiter, as
// the worker will call it) against sharp called directly for the same two
// WebP variants of the same images: one pipeline per variant (the baseline),
// and sharp doing the core's one-decode technique without the core (its own
// cost). All 4 images at once, rounds interleaved and rotated so drift hits
// them alike. One "resize" is one variant written.
// The worker path beside them (bench/media-worker.ts): the `resize` worker
// draining a batch of accepted uploads (S3 read, limiter, variants, S3 writes,
// the conditional finish with its outbox row), in the same rounds; then
// upload → ready latency (HTTP in-process, S3, queue, worker) at a steady rate.
import { performance } from 'node:perf_hooks';
import {
  configureSharp,
  createImageLimiter,
  makeVariants,
  VARIANT_SPECS,
  VARIANT_WEBP_OPTIONS,
} from '@hireflow/media/images';
import sharp from 'sharp';
import { startWorkerPath, type WorkerPath } from './media-worker.ts';
import { type BenchReport, percentile, round } from './report.ts';

const CONCURRENCY = 4;
const ROUNDS = Number(process.env.BENCH_MEDIA_ROUNDS ?? 8);
const IMAGES_PER_ROUND = Number(process.env.BENCH_MEDIA_IMAGES ?? 12);
const STEADY_RATE_PER_S = Number(process.env.BENCH_MEDIA_RATE ?? 3);
const STEADY_UPLOADS = Number(process.env.BENCH_MEDIA_UPLOADS ?? 45);

interface Sample {
  latencies: number[];
  images: number;
  seconds: number;
}

type Variant = (images: Buffer[]) => Promise<Sample>;

export default async function mediaBench(): Promise<BenchReport> {
  await configureSharp();
  const mix = await realisticMix();
  const path = await startWorkerPath(CONCURRENCY);
  try {
    return await measure(mix, path);
  } finally {
    await path.close();
  }
}

async function measure(mix: { label: string; bytes: Buffer }[], path: WorkerPath): Promise<BenchReport> {
  const WORKER = 'worker: S3 → resize → S3 → ready';
  const variants: Record<string, Variant> = {
    'sharp direct (baseline)': (images) => inLoops(images, direct),
    'sharp direct, one decode': (images) => inLoops(images, directOneDecode),
    'makeVariants via limiter': throughLimiter(),
    [WORKER]: (images) => path.drain(images),
  };
  const names = Object.keys(variants);
  const samples = new Map(names.map((n) => [n, { latencies: [] as number[], images: 0, seconds: 0 }]));

  for (let r = -1; r < ROUNDS; r++) {
    const images = Array.from({ length: IMAGES_PER_ROUND }, (_, i) => mix[i % mix.length]!.bytes);
    const order = names.map((_, i) => names[(i + Math.max(r, 0)) % names.length]!);
    for (const name of order) {
      const run = await variants[name]!(images);
      if (r < 0) continue; // warm-up round
      const sample = samples.get(name)!;
      sample.latencies.push(...run.latencies);
      sample.images += run.images;
      sample.seconds += run.seconds;
    }
  }
  const steady = await path.steady(
    mix.map((m) => m.bytes),
    STEADY_UPLOADS,
    STEADY_RATE_PER_S,
  );

  const resizesPerSecond = (n: string) =>
    (samples.get(n)!.images * VARIANT_SPECS.length) / samples.get(n)!.seconds;
  const rows: Record<string, string | number>[] = names.map((n) => {
    const { latencies, images, seconds } = samples.get(n)!;
    return {
      variant: n,
      'resizes/s': round(resizesPerSecond(n), 1),
      'images/s': round(images / seconds, 1),
      'per image p50 ms': round(percentile(latencies, 50), 1),
      'per image p99 ms': round(percentile(latencies, 99), 1),
    };
  });
  rows.push({
    variant: `upload → ready at ${STEADY_RATE_PER_S}/s (${STEADY_UPLOADS} uploads)`,
    'resizes/s': '',
    'images/s': STEADY_RATE_PER_S,
    'per image p50 ms': round(percentile(steady, 50), 1),
    'per image p99 ms': round(percentile(steady, 99), 1),
  });
  return {
    description:
      `${VARIANT_SPECS.map((s) => `${s.name} ≤ ${s.maxSize} px`).join(' + ')} WebP from each of ` +
      `${mix.map((m) => `${m.label} (${Math.round(m.bytes.length / 1024)} KiB)`).join(', ')}, ` +
      `${CONCURRENCY} images at once (sharp.concurrency() = ${sharp.concurrency()}, cache off), ` +
      `${ROUNDS} interleaved rounds of ${IMAGES_PER_ROUND} images per variant after a warm-up round; ` +
      'per image = time in its slot, decode to the last variant (worker: from the resume to its ready). ' +
      `The worker drains uploads accepted while it was paused; upload → ready is POST start to the ` +
      'worker finishing the upload, at a steady rate, the worker running.',
    rows,
    ratios: {
      'worker ÷ sharp direct (resizes/s)':
        resizesPerSecond(WORKER) / resizesPerSecond('sharp direct (baseline)'),
      'makeVariants via limiter ÷ sharp direct (resizes/s)':
        resizesPerSecond('makeVariants via limiter') / resizesPerSecond('sharp direct (baseline)'),
      // the core's own cost (header check, limits, limiter) against sharp doing the same work
      'makeVariants via limiter ÷ sharp direct, one decode (resizes/s)':
        resizesPerSecond('makeVariants via limiter') / resizesPerSecond('sharp direct, one decode'),
    },
  };
}

/** What a service calling sharp straight would write: one pipeline per variant. */
async function direct(bytes: Buffer): Promise<void> {
  for (const spec of VARIANT_SPECS) {
    await sharp(bytes)
      .rotate()
      .resize(spec.maxSize, spec.maxSize, { fit: 'inside', withoutEnlargement: true })
      .webp(VARIANT_WEBP_OPTIONS)
      .toBuffer();
  }
}

/** The core's technique without the core: decode once to the largest box, encode each variant from it. */
async function directOneDecode(bytes: Buffer): Promise<void> {
  const largest = Math.max(...VARIANT_SPECS.map((s) => s.maxSize));
  const { data, info } = await sharp(bytes)
    .rotate()
    .resize(largest, largest, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (const spec of VARIANT_SPECS) {
    await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .resize(spec.maxSize, spec.maxSize, { fit: 'inside', withoutEnlargement: true })
      .webp(VARIANT_WEBP_OPTIONS)
      .toBuffer();
  }
}

/** `CONCURRENCY` loops taking the next image until none is left. */
async function inLoops(images: Buffer[], work: (bytes: Buffer) => Promise<void>): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  const loop = async () => {
    while (next < images.length) {
      const bytes = images[next++]!;
      const start = performance.now();
      await work(bytes);
      latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return { latencies, images: images.length, seconds: (performance.now() - start) / 1000 };
}

/** Every image handed to the limiter at once, as jobs arriving at a worker would be. */
function throughLimiter(): Variant {
  const limiter = createImageLimiter({ concurrency: CONCURRENCY });
  return async (images) => {
    const latencies: number[] = [];
    const start = performance.now();
    await Promise.all(
      images.map((bytes) =>
        limiter.run(async (signal) => {
          const began = performance.now();
          await makeVariants(bytes, { signal });
          latencies.push(performance.now() - began);
        }),
      ),
    );
    return { latencies, images: images.length, seconds: (performance.now() - start) / 1000 };
  };
}

/**
 * Photo-like images: smooth shapes (low-resolution noise enlarged) with
 * sharpened edges, which compress like camera pictures, unlike flat colour
 * or pure noise.
 */
async function realisticMix(): Promise<{ label: string; bytes: Buffer }[]> {
  const photo = (width: number, height: number) =>
    sharp({
      create: {
        width: Math.ceil(width / 24),
        height: Math.ceil(height / 24),
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 60 },
      },
    })
      .resize(width, height, { kernel: 'cubic' })
      .sharpen({ sigma: 2 });
  return [
    { label: '2000×1500 JPEG', bytes: await photo(2000, 1500).jpeg({ quality: 85 }).toBuffer() },
    { label: '800×600 PNG', bytes: await photo(800, 600).png().toBuffer() },
    { label: '4000×3000 JPEG', bytes: await photo(4000, 3000).jpeg({ quality: 85 }).toBuffer() },
  ];
}
