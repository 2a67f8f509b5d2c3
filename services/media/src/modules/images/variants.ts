import type { ResizeOptions, WebpOptions } from 'sharp';
import { type ImageInfo, inspectImage } from './inspect.ts';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from './limits.ts';
import { imageErrorFromSharp, loadSharp, sharpTimeoutSeconds, untrustedInput } from './sharp-settings.ts';

export type VariantName = 'thumb' | 'medium';

export interface VariantSpec {
  name: VariantName;
  /** The variant fits in a box this many pixels wide and high. */
  maxSize: number;
}

/** Every variant is encoded from one decode fitted to the largest box (see makeVariants). */
export const VARIANT_SPECS: readonly VariantSpec[] = [
  { name: 'medium', maxSize: 512 },
  { name: 'thumb', maxSize: 128 },
];

export const VARIANT_CONTENT_TYPE = 'image/webp';

/** WebP settings of every variant (sharp's defaults, spelled out so the bench's baseline matches them). */
export const VARIANT_WEBP_OPTIONS: Readonly<WebpOptions> = { quality: 80, effort: 4 };

export interface Variant {
  name: VariantName;
  width: number;
  height: number;
  contentType: string;
  bytes: Buffer;
}

export interface MakeVariantsOptions {
  limits?: ImageLimits;
  /**
   * Checked before each pipeline: once aborted, throws the signal's reason (the
   * limiter aborts a task that timed out with its ImageTimeoutError).
   */
  signal?: AbortSignal;
}

export interface VariantsResult {
  source: ImageInfo;
  variants: Variant[];
}

/**
 * The WebP variants of an uploaded image, each fitting inside its box, aspect
 * ratio kept, never enlarged, EXIF orientation applied, metadata stripped
 * (sharp writes none unless asked). Animated GIF/WebP give their first frame.
 * Throws an ImageError (unsupported type, too large, too many pixels, corrupt,
 * timeout), each permanent.
 *
 * The upload is decoded once, down to the largest box, and every variant is
 * encoded from those pixels: decoding is most of the cost (PNG, GIF and WebP
 * have no shrink-on-load), and a second decode of the same bytes gains nothing.
 */
export async function makeVariants(
  bytes: Uint8Array,
  options: MakeVariantsOptions = {},
): Promise<VariantsResult> {
  const limits = options.limits ?? DEFAULT_IMAGE_LIMITS;
  const source = await inspectImage(bytes, limits);
  options.signal?.throwIfAborted();
  const pixels = await decodeToBox(bytes, Math.max(...VARIANT_SPECS.map((s) => s.maxSize)), limits);
  const variants: Variant[] = [];
  for (const spec of VARIANT_SPECS) {
    options.signal?.throwIfAborted();
    variants.push(await encodeVariant(pixels, spec, limits));
  }
  return { source, variants };
}

interface Pixels {
  data: Buffer;
  raw: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
}

/** Decoded, oriented, fitted inside `box`×`box` (never enlarged), as raw sRGB pixels. */
async function decodeToBox(bytes: Uint8Array, box: number, limits: ImageLimits): Promise<Pixels> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(bytes, untrustedInput(limits))
      .timeout({ seconds: sharpTimeoutSeconds(limits) })
      .autoOrient()
      .resize(fitInside(box))
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, raw: { width: info.width, height: info.height, channels: info.channels } };
  } catch (error) {
    throw imageErrorFromSharp(error, limits);
  }
}

async function encodeVariant(pixels: Pixels, spec: VariantSpec, limits: ImageLimits): Promise<Variant> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(pixels.data, { raw: pixels.raw })
      .timeout({ seconds: sharpTimeoutSeconds(limits) })
      .resize(fitInside(spec.maxSize))
      .webp(VARIANT_WEBP_OPTIONS)
      .toBuffer({ resolveWithObject: true });
    return {
      name: spec.name,
      width: info.width,
      height: info.height,
      contentType: VARIANT_CONTENT_TYPE,
      bytes: data,
    };
  } catch (error) {
    throw imageErrorFromSharp(error, limits);
  }
}

function fitInside(box: number): ResizeOptions {
  return { width: box, height: box, fit: 'inside', withoutEnlargement: true };
}
