import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import * as fixtures from '../../../test/fixtures/images.ts';
import {
  CorruptImageError,
  ImageTimeoutError,
  TooManyPixelsError,
  UnsupportedImageTypeError,
} from './errors.ts';
import { imageLimits } from './limits.ts';
import {
  configureSharp,
  imageErrorFromSharp,
  sharpTimeoutSeconds,
  untrustedInput,
} from './sharp-settings.ts';

beforeAll(() => configureSharp());

describe('sharp settings', () => {
  it('makes the decoder itself refuse more pixels than the limit, whatever checked the header before', async () => {
    const limits = imageLimits({ maxPixels: 1000 });
    const image = await fixtures.png(40, 30);
    const error = await sharp(image, untrustedInput(limits))
      .resize(10)
      .toBuffer()
      .catch((e: unknown) => e);
    expect(imageErrorFromSharp(error, limits)).toBeInstanceOf(TooManyPixelsError);
  });

  it('makes truncated data an error instead of a grey half image', async () => {
    const limits = imageLimits();
    const truncated = await fixtures.truncatedPng();
    await expect(sharp(truncated, untrustedInput(limits)).resize(10).toBuffer()).rejects.toThrow();
    // what sharp does without the setting: decodes what it can and says nothing
    await expect(sharp(truncated, { failOn: 'none' }).resize(10).toBuffer()).resolves.toBeInstanceOf(Buffer);
  });

  it('blocks the decoders of formats not accepted (TIFF, SVG), even past the magic number check', async () => {
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .tiff()
      .toBuffer();
    for (const bytes of [tiff, fixtures.svg()]) {
      const error = await sharp(bytes)
        .metadata()
        .catch((e: unknown) => e);
      expect(imageErrorFromSharp(error, imageLimits())).toBeInstanceOf(UnsupportedImageTypeError);
    }
  });

  it('maps sharp failures to typed errors with fixed reasons, keeping the decoder message as the cause', () => {
    const limits = imageLimits({ timeoutMs: 5000 });
    const cases: [string, unknown][] = [
      ['timeout: 42% complete', ImageTimeoutError],
      ['VipsJpeg: premature end of JPEG image', CorruptImageError],
      ['vipspng: libpng read error', CorruptImageError],
      ['Input buffer contains unsupported image format', UnsupportedImageTypeError],
    ];
    for (const [message, type] of cases) {
      const sharpError = new Error(message);
      const mapped = imageErrorFromSharp(sharpError, limits);
      expect(mapped).toBeInstanceOf(type);
      expect(mapped.cause).toBe(sharpError);
      expect(mapped.reason).not.toContain(message);
    }
    const already = new ImageTimeoutError(1);
    expect(imageErrorFromSharp(already, limits)).toBe(already);
  });

  it('gives libvips a whole-second timeout of at least 1 s', () => {
    expect(sharpTimeoutSeconds(imageLimits({ timeoutMs: 1 }))).toBe(1);
    expect(sharpTimeoutSeconds(imageLimits({ timeoutMs: 30_000 }))).toBe(30);
    expect(sharpTimeoutSeconds(imageLimits({ timeoutMs: 30_001 }))).toBe(31);
  });

  it('refuses limits that are not positive integers', () => {
    expect(() => imageLimits({ maxPixels: 0 })).toThrow(/maxPixels/);
    expect(() => imageLimits({ maxBytes: 1.5 })).toThrow(/maxBytes/);
    expect(imageLimits({ maxBytes: undefined })).toEqual(imageLimits());
  });
});
