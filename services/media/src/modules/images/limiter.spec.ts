import { beforeAll, describe, expect, it } from 'vitest';
import * as fixtures from '../../../test/fixtures/images.ts';
import { ImageError, ImageTimeoutError } from './errors.ts';
import { createImageLimiter } from './limiter.ts';
import { configureSharp } from './sharp-settings.ts';
import { makeVariants } from './variants.ts';

beforeAll(() => configureSharp());

describe('createImageLimiter', () => {
  it('runs at most `concurrency` tasks at once, in arrival order', async () => {
    const limiter = createImageLimiter({ concurrency: 2 });
    const gates = Array.from({ length: 5 }, () => Promise.withResolvers<void>());
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await gate.promise;
        running--;
        return i;
      }),
    );
    await Promise.resolve();
    expect([limiter.active, limiter.queued]).toEqual([2, 3]);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect([limiter.active, limiter.queued]).toEqual([0, 0]);
  });

  it('never lets a slot be taken twice when a freed slot passes to a waiter', async () => {
    const limiter = createImageLimiter({ concurrency: 1 });
    let running = 0;
    let most = 0;
    const task = async () => {
      most = Math.max(most, ++running);
      await Promise.resolve();
      running--;
    };
    await Promise.all([limiter.run(task), limiter.run(task), limiter.run(task), limiter.run(task)]);
    expect(most).toBe(1);
  });

  it('fails a hung task with ImageTimeoutError, aborts its signal, and frees its slot for the next', async () => {
    const limiter = createImageLimiter({ concurrency: 1, timeoutMs: 50 });
    let seen: AbortSignal | undefined;
    const hung = limiter.run((signal) => {
      seen = signal;
      return new Promise<never>(() => {});
    });
    const next = limiter.run(async () => 'done');
    const error = await hung.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImageTimeoutError);
    expect(error).toMatchObject({
      code: 'IMAGE_TIMEOUT',
      reason: 'processing the image took longer than 50 ms',
    });
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
    await expect(next).resolves.toBe('done');
  });

  it('keeps going after tasks that throw, synchronously or not', async () => {
    const limiter = createImageLimiter({ concurrency: 1 });
    const boom = new Error('boom');
    await expect(
      limiter.run(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expect(limiter.run(async () => Promise.reject(boom))).rejects.toBe(boom);
    await expect(limiter.run(async () => 42)).resolves.toBe(42);
    expect(limiter.active).toBe(0);
  });

  it('lets good images through while a bad one hangs', async () => {
    const limiter = createImageLimiter({ concurrency: 1 });
    const image = await fixtures.jpeg(600, 400);
    const hung = limiter.run(() => new Promise<never>(() => {}), { timeoutMs: 50 });
    const good = limiter.run((signal) => makeVariants(image, { signal }));
    await expect(hung).rejects.toBeInstanceOf(ImageTimeoutError);
    const { variants } = await good;
    expect(variants.map((v) => v.name)).toEqual(['medium', 'thumb']);
  });

  it('ends every bad input of a mixed batch in an ImageError with a reason, and the good ones in variants', async () => {
    const limiter = createImageLimiter({ concurrency: 4 });
    const big = await fixtures.png(200, 200);
    const batch = {
      'zero bytes': Buffer.alloc(0),
      'text named .png': fixtures.text(),
      'truncated PNG': await fixtures.truncatedPng(),
      '30000×30000 PNG header': fixtures.pngClaiming(30_000, 30_000),
      PDF: fixtures.pdf(),
      'over the byte limit': Buffer.concat([big, Buffer.alloc(10 * 1024 * 1024)]),
      'good JPEG': await fixtures.jpeg(640, 480),
      'good PNG': big,
    };
    const settled = await Promise.allSettled(
      Object.values(batch).map((bytes) => limiter.run((signal) => makeVariants(bytes, { signal }))),
    );
    const outcomes = Object.fromEntries(
      Object.keys(batch).map((label, i) => {
        const result = settled[i]!;
        if (result.status === 'fulfilled') return [label, 'ready'];
        expect(result.reason).toBeInstanceOf(ImageError);
        return [label, (result.reason as ImageError).code];
      }),
    );
    expect(outcomes).toEqual({
      'zero bytes': 'UNSUPPORTED_IMAGE_TYPE',
      'text named .png': 'UNSUPPORTED_IMAGE_TYPE',
      'truncated PNG': 'CORRUPT_IMAGE',
      '30000×30000 PNG header': 'TOO_MANY_PIXELS',
      PDF: 'UNSUPPORTED_IMAGE_TYPE',
      'over the byte limit': 'FILE_TOO_LARGE',
      'good JPEG': 'ready',
      'good PNG': 'ready',
    });
  });

  it('ends makeVariants with a timeout failure when the image takes longer than the limit', async () => {
    const limiter = createImageLimiter({ timeoutMs: 1 });
    const image = await fixtures.jpeg(4000, 3000);
    await expect(limiter.run((signal) => makeVariants(image, { signal }))).rejects.toBeInstanceOf(
      ImageTimeoutError,
    );
  });

  it('refuses nonsense settings', async () => {
    expect(() => createImageLimiter({ concurrency: 0 })).toThrow(RangeError);
    expect(() => createImageLimiter({ timeoutMs: -1 })).toThrow(RangeError);
    await expect(createImageLimiter().run(async () => 1, { timeoutMs: 0 })).rejects.toThrow(RangeError);
  });
});
