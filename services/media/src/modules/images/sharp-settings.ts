import type { SharpOptions, default as sharpModule } from 'sharp';
import {
  CorruptImageError,
  ImageError,
  ImageTimeoutError,
  TooManyPixelsError,
  UnsupportedImageTypeError,
} from './errors.ts';
import type { ImageLimits } from './limits.ts';

/** libvips loaders for the accepted formats, from memory; AVIF comes through the HEIF loader. */
const ALLOWED_LOADERS = [
  'VipsForeignLoadJpegBuffer',
  'VipsForeignLoadPngBuffer',
  'VipsForeignLoadWebpBuffer',
  'VipsForeignLoadGifBuffer',
  'VipsForeignLoadNsgifBuffer',
  'VipsForeignLoadHeifBuffer',
];

/** sharp's default export: the pipeline factory and its process-wide settings. */
export type SharpLib = typeof sharpModule;

let loading: Promise<SharpLib> | undefined;

/**
 * sharp (libvips), loaded on first use and configured before anything can use
 * it (issue 31): a media process that has not yet seen an image does not
 * carry libvips (the API until its first upload, the worker until its first
 * resize). The first caller waits for the load (tens to a few hundred ms);
 * the rest share it. Every pipeline gets sharp from here, so none can run
 * with the defaults below undone.
 */
export function loadSharp(): Promise<SharpLib> {
  loading ??= import('sharp').then(
    ({ default: sharp }) => {
      applySettings(sharp);
      return sharp;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Loads and configures sharp now (tests and benches that call sharp themselves). */
export async function configureSharp(): Promise<void> {
  await loadSharp();
}

/**
 * Process-wide sharp settings for a server that decodes untrusted images,
 * applied once as sharp loads:
 * - No operation cache: its default keeps up to 50 MB of decoded images around
 *   for re-use, which a server handling each upload once never gets.
 * - Every libvips loader but the accepted formats' is blocked: should the magic
 *   number check ever be bypassed, SVG, PDF, TIFF and the rest still cannot
 *   reach their (larger, riskier) decoders.
 * sharp's own thread count is left as is (1 per image on this machine): the
 * limiter runs a few images at once instead.
 */
function applySettings(sharp: SharpLib): void {
  sharp.cache(false);
  sharp.block({ operation: ['VipsForeignLoad'] });
  sharp.unblock({ operation: ALLOWED_LOADERS });
}

/**
 * The input options of every pipeline on an upload:
 * - `failOn: 'error'`: truncated or undecodable data is an error (the level
 *   implies 'truncated'); 'warning' would also refuse the many camera and
 *   editor JPEGs with harmless warnings (extraneous bytes before a marker).
 * - `limitInputPixels`: checked again by the decoder itself, whatever the
 *   header check before it concluded.
 * - `sequentialRead`: top to bottom in one pass, so memory stays a few
 *   scanlines per stage instead of the whole decoded image.
 * - `pages: 1`: animated GIF and WebP give their first frame only, so the
 *   frame count cannot multiply the work.
 */
export function untrustedInput(limits: ImageLimits): SharpOptions {
  return { failOn: 'error', limitInputPixels: limits.maxPixels, sequentialRead: true, pages: 1 };
}

/** libvips stops a pipeline after this many whole seconds (0 means never, so at least 1). */
export function sharpTimeoutSeconds(limits: ImageLimits): number {
  return Math.min(3600, Math.max(1, Math.ceil(limits.timeoutMs / 1000)));
}

/**
 * A sharp (libvips) failure as one of our typed errors. The reasons are fixed
 * wording: decoder messages stay in `cause` for the logs, not in the reason a
 * client reads.
 */
export function imageErrorFromSharp(error: unknown, limits: ImageLimits): ImageError {
  if (error instanceof ImageError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const options = { cause: error };
  if (/exceeds pixel limit/i.test(message))
    return new TooManyPixelsError(limits.maxPixels, undefined, options);
  if (/^timeout/i.test(message)) return new ImageTimeoutError(limits.timeoutMs, options);
  if (/unsupported image format|is blocked/i.test(message)) {
    return new UnsupportedImageTypeError('the file is not an image format this service can read', options);
  }
  if (/premature end|truncat|unexpected end|end of (file|data|stream)|not enough data/i.test(message)) {
    return new CorruptImageError('the image data ends early (the file is truncated)', options);
  }
  return new CorruptImageError('the image data is corrupt or truncated and cannot be decoded', options);
}
