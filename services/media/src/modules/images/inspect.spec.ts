import { beforeAll, describe, expect, it } from 'vitest';
import * as fixtures from '../../../test/fixtures/images.ts';
import {
  CorruptImageError,
  FileTooLargeError,
  TooManyPixelsError,
  UnsupportedImageTypeError,
} from './errors.ts';
import { inspectImage } from './inspect.ts';
import { imageLimits } from './limits.ts';
import { configureSharp } from './sharp-settings.ts';

beforeAll(() => configureSharp());

describe('inspectImage', () => {
  it('reads type and size from the header, oriented as displayed', async () => {
    const info = await inspectImage(await fixtures.jpegWithOrientation(300, 200, 6));
    expect(info).toEqual({
      format: 'jpeg',
      contentType: 'image/jpeg',
      width: 300,
      height: 200,
      orientedWidth: 200,
      orientedHeight: 300,
      frames: 1,
    });
  });

  it('counts the frames of an animated GIF but measures one frame', async () => {
    const info = await inspectImage(await fixtures.animated('gif', 60, 40, 3));
    expect(info).toMatchObject({ format: 'gif', width: 60, height: 40, frames: 3 });
  });

  it('refuses a PNG whose header claims 30000×30000, naming the claimed size', async () => {
    const bomb = fixtures.pngClaiming(30_000, 30_000);
    const error = await inspectImage(bomb).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyPixelsError);
    expect(error).toMatchObject({
      code: 'TOO_MANY_PIXELS',
      statusCode: 422,
      width: 30_000,
      height: 30_000,
      limit: 40_000_000,
      reason: 'the image 30000×30000 has more than the limit of 40000000 pixels',
    });
  });

  it('takes its pixel limit from the options', async () => {
    const image = await fixtures.png(40, 25); // 1000 pixels
    await expect(inspectImage(image, imageLimits({ maxPixels: 1000 }))).resolves.toMatchObject({ width: 40 });
    await expect(inspectImage(image, imageLimits({ maxPixels: 999 }))).rejects.toBeInstanceOf(
      TooManyPixelsError,
    );
  });

  it('refuses a file over the byte limit before looking at it', async () => {
    const image = await fixtures.png(40, 30);
    const error = await inspectImage(image, imageLimits({ maxBytes: image.length - 1 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect(error).toMatchObject({ code: 'FILE_TOO_LARGE', statusCode: 413, size: image.length });
  });

  it.each([
    ['zero bytes', () => Buffer.alloc(0), /empty/],
    ['text', fixtures.text, /text files/],
    ['a PDF', fixtures.pdf, /PDF files/],
  ])('refuses %s as an unsupported type (415)', async (_label, make, reason) => {
    const error = await inspectImage(make()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedImageTypeError);
    expect(error).toMatchObject({
      code: 'UNSUPPORTED_IMAGE_TYPE',
      statusCode: 415,
      reason: expect.stringMatching(reason),
    });
  });

  it('refuses magic numbers followed by garbage as corrupt, not as a type', async () => {
    const garbage = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('not really a jpeg')]);
    await expect(inspectImage(garbage)).rejects.toBeInstanceOf(CorruptImageError);
  });

  it('refuses a file with AVIF brands but no valid HEIF boxes as corrupt', async () => {
    const boxSoup = Buffer.concat([fixtures.ftyp('avif', ['mif1', 'miaf']), Buffer.alloc(64)]);
    await expect(inspectImage(boxSoup)).rejects.toMatchObject({
      code: 'CORRUPT_IMAGE',
      reason: 'the image data is corrupt or truncated and cannot be decoded',
    });
  });
});
