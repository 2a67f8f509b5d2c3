import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import * as fixtures from '../../../test/fixtures/images.ts';
import { CorruptImageError, TooManyPixelsError, UnsupportedImageTypeError } from './errors.ts';
import { detectImageType } from './image-type.ts';
import { imageLimits } from './limits.ts';
import { configureSharp } from './sharp-settings.ts';
import { makeVariants, type Variant } from './variants.ts';

beforeAll(() => configureSharp());

const sizes = (variants: Variant[]) => Object.fromEntries(variants.map((v) => [v.name, [v.width, v.height]]));

describe('makeVariants', () => {
  it('makes a thumb within 128×128 and a medium within 512×512, aspect ratio kept', async () => {
    const { source, variants } = await makeVariants(await fixtures.jpeg(2000, 1500));
    expect(source).toMatchObject({ format: 'jpeg', width: 2000, height: 1500 });
    expect(sizes(variants)).toEqual({ medium: [512, 384], thumb: [128, 96] });
  });

  it('writes WebP whose size is what it says', async () => {
    const { variants } = await makeVariants(await fixtures.png(800, 600));
    for (const variant of variants) {
      expect(variant.contentType).toBe('image/webp');
      expect(detectImageType(variant.bytes)).toMatchObject({ format: 'webp' });
      const metadata = await sharp(variant.bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual([
        'webp',
        variant.width,
        variant.height,
      ]);
    }
  });

  it('applies EXIF orientation 6: a 300×200 stored image comes out 200 wide, 300 high', async () => {
    const { variants } = await makeVariants(await fixtures.jpegWithOrientation(300, 200, 6));
    expect(sizes(variants)).toEqual({ medium: [200, 300], thumb: [85, 128] });
  });

  it('strips metadata: no EXIF (camera, author, orientation), ICC or XMP in the output', async () => {
    const input = await fixtures.jpegWithOrientation(300, 200, 6);
    expect((await sharp(input).metadata()).exif?.toString('latin1')).toContain('Jane Doe');
    const { variants } = await makeVariants(input);
    for (const variant of variants) {
      const metadata = await sharp(variant.bytes).metadata();
      const { exif, icc, xmp, iptc, orientation } = metadata;
      expect({ exif, icc, xmp, iptc, orientation }).toEqual({});
      expect(variant.bytes.toString('latin1')).not.toContain('Jane Doe');
    }
  });

  it('never enlarges a tiny image', async () => {
    const { variants } = await makeVariants(await fixtures.png(10, 8));
    expect(sizes(variants)).toEqual({ medium: [10, 8], thumb: [10, 8] });
  });

  it('keeps the aspect ratio of a wide panorama', async () => {
    const { variants } = await makeVariants(await fixtures.jpeg(4000, 500));
    expect(sizes(variants)).toEqual({ medium: [512, 64], thumb: [128, 16] });
  });

  it.each([
    ['GIF', fixtures.gif],
    ['WebP', fixtures.webp],
    ['AVIF', fixtures.avif],
  ])('reads %s input', async (_label, make) => {
    const { variants } = await makeVariants(await make(600, 300));
    expect(sizes(variants)).toEqual({ medium: [512, 256], thumb: [128, 64] });
  });

  it('keeps the transparency of a PNG', async () => {
    const { variants } = await makeVariants(await fixtures.png(300, 300));
    for (const variant of variants) expect((await sharp(variant.bytes).metadata()).hasAlpha).toBe(true);
  });

  it.each(['gif', 'webp'] as const)(
    'turns an animated %s into a still of its first frame',
    async (format) => {
      const { source, variants } = await makeVariants(await fixtures.animated(format, 60, 40, 3));
      expect(source.frames).toBe(3);
      expect(sizes(variants)).toEqual({ medium: [60, 40], thumb: [60, 40] });
      const first = await sharp(variants[0]!.bytes).stats();
      expect(first.channels[0]!.mean).toBeLessThan(5); // frame 0 has red 0; frames 1 and 2 have 40 and 80
      expect((await sharp(variants[0]!.bytes).metadata()).pages ?? 1).toBe(1);
    },
  );

  it('fails a truncated PNG as corrupt', async () => {
    const error = await makeVariants(await fixtures.truncatedPng()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptImageError);
    expect(error).toMatchObject({ code: 'CORRUPT_IMAGE', permanent: true });
  });

  it('fails a truncated JPEG as truncated', async () => {
    const whole = await fixtures.jpeg(400, 300);
    const error = await makeVariants(whole.subarray(0, whole.length >> 1)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'CORRUPT_IMAGE',
      reason: 'the image data ends early (the file is truncated)',
    });
  });

  it('fails a PNG whose pixel data was damaged in transit', async () => {
    const damaged = Buffer.from(await fixtures.png(200, 150));
    for (let i = damaged.length >> 1; i < (damaged.length >> 1) + 64; i++) damaged[i] = damaged[i]! ^ 0xff;
    await expect(makeVariants(damaged)).rejects.toBeInstanceOf(CorruptImageError);
  });

  it('refuses the 30000×30000 PNG header before decoding anything', async () => {
    await expect(makeVariants(fixtures.pngClaiming(30_000, 30_000))).rejects.toBeInstanceOf(
      TooManyPixelsError,
    );
  });

  it.each([
    ['zero bytes', () => Buffer.alloc(0)],
    ['text with a .png name', fixtures.text],
    ['a PDF', fixtures.pdf],
    ['an SVG', fixtures.svg],
  ])('refuses %s as unsupported', async (_label, make) => {
    await expect(makeVariants(make())).rejects.toBeInstanceOf(UnsupportedImageTypeError);
  });

  it('applies configured limits', async () => {
    const image = await fixtures.jpeg(400, 300);
    await expect(makeVariants(image, { limits: imageLimits({ maxPixels: 100_000 }) })).rejects.toMatchObject({
      code: 'TOO_MANY_PIXELS',
    });
    await expect(makeVariants(image, { limits: imageLimits({ maxBytes: 1000 }) })).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
  });

  it('stops before its next pipeline once its signal is aborted, with the signal’s reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(makeVariants(await fixtures.jpeg(400, 300), { signal: controller.signal })).rejects.toBe(
      reason,
    );
  });
});
