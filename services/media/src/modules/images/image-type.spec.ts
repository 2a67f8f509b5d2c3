import { describe, expect, it } from 'vitest';
import * as fixtures from '../../../test/fixtures/images.ts';
import { detectImageType, IMAGE_TYPE_HEAD_BYTES } from './image-type.ts';

const head = (bytes: Buffer) => bytes.subarray(0, IMAGE_TYPE_HEAD_BYTES);

describe('detectImageType', () => {
  it.each([
    ['jpeg', 'image/jpeg', () => fixtures.jpeg(40, 30)],
    ['png', 'image/png', () => fixtures.png(40, 30)],
    ['gif', 'image/gif', () => fixtures.gif(40, 30)],
    ['webp', 'image/webp', () => fixtures.webp(40, 30)],
    ['avif', 'image/avif', () => fixtures.avif(40, 30)],
  ])('recognises %s from its first bytes', async (format, contentType, make) => {
    expect(detectImageType(head(await make()))).toEqual({ supported: true, format, contentType });
  });

  it('recognises GIF87a as well as GIF89a', () => {
    expect(detectImageType(Buffer.from('GIF87a\x01\x00\x01\x00', 'latin1'))).toMatchObject({ format: 'gif' });
  });

  it('recognises AVIF by a compatible brand when the major brand is another', () => {
    expect(detectImageType(fixtures.ftyp('mif1', ['mif1', 'miaf', 'avif']))).toMatchObject({
      format: 'avif',
    });
    expect(detectImageType(fixtures.ftyp('avis', ['msf1']))).toMatchObject({ format: 'avif' });
  });

  it('ignores everything after the head, so a whole file can be passed', async () => {
    const big = Buffer.concat([await fixtures.png(40, 30), Buffer.alloc(1_000_000)]);
    expect(detectImageType(big)).toMatchObject({ supported: true, format: 'png' });
  });

  it.each([
    ['zero bytes', Buffer.alloc(0), /empty/],
    ['text (whatever its name says)', fixtures.text(), /text files are not accepted/],
    ['UTF-8 text', Buffer.from('Lettre de motivation — café, 2026'), /text files are not accepted/],
    ['a PDF', fixtures.pdf(), /PDF files are not accepted/],
    ['an SVG', fixtures.svg(), /SVG files are not accepted/],
    ['HEIC', fixtures.ftyp('heic', ['mif1', 'heic']), /HEIC\/HEIF files are not accepted/],
    ['an MP4 video', fixtures.ftyp('isom', ['isom', 'mp41']), /video files are not accepted/],
    ['TIFF', Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), /TIFF files are not accepted/],
    ['random bytes', Buffer.from([0x00, 0x13, 0x37, 0x00, 0xff]), /not a JPEG, PNG, WebP, GIF or AVIF image/],
    ['a PNG signature cut short', Buffer.from([0x89, 0x50, 0x4e, 0x47]), /not a JPEG, PNG/],
    ['RIFF that is not WebP (WAV)', Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), /not a JPEG/],
  ])('refuses %s with a reason', (_label, bytes, reason) => {
    const result = detectImageType(bytes);
    expect(result.supported).toBe(false);
    if (!result.supported) expect(result.reason).toMatch(reason);
  });

  it('never echoes file content in the reason', () => {
    const result = detectImageType(Buffer.from('secret-token-1234 in a .png'));
    expect(result).toEqual({ supported: false, reason: expect.not.stringContaining('secret') });
  });
});
