import type { Metadata } from 'sharp';
import { FileTooLargeError, TooManyPixelsError, UnsupportedImageTypeError } from './errors.ts';
import { detectImageType, IMAGE_CONTENT_TYPES, type ImageFormat } from './image-type.ts';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from './limits.ts';
import { imageErrorFromSharp, loadSharp, untrustedInput } from './sharp-settings.ts';

export interface ImageInfo {
  format: ImageFormat;
  contentType: string;
  /** As stored (before EXIF orientation), of the first frame. */
  width: number;
  height: number;
  /** As displayed: width and height swapped when the EXIF orientation turns the image. */
  orientedWidth: number;
  orientedHeight: number;
  /** Frames of an animated GIF/WebP (1 otherwise); only the first is used. */
  frames: number;
}

/**
 * Everything that can be refused without decoding pixels: size, type (magic
 * numbers), and the dimensions the header claims against the pixel limit.
 * sharp's `metadata()` reads headers only; it runs here without the pixel
 * limit so that a refusal can name the claimed size, which this check then
 * enforces (every decoding pipeline enforces it again).
 */
export async function inspectImage(
  bytes: Uint8Array,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
): Promise<ImageInfo> {
  if (bytes.length > limits.maxBytes) throw new FileTooLargeError(bytes.length, limits.maxBytes);
  const detected = detectImageType(bytes);
  if (!detected.supported) throw new UnsupportedImageTypeError(detected.reason);
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { ...untrustedInput(limits), limitInputPixels: false }).metadata();
  } catch (error) {
    throw imageErrorFromSharp(error, limits);
  }
  checkDecoderAgrees(detected.format, metadata);
  const width = metadata.width;
  const height = metadata.pageHeight ?? metadata.height;
  if (width * height > limits.maxPixels) throw new TooManyPixelsError(limits.maxPixels, { width, height });
  const turned = (metadata.orientation ?? 1) >= 5;
  return {
    format: detected.format,
    contentType: IMAGE_CONTENT_TYPES[detected.format],
    width,
    height,
    orientedWidth: turned ? height : width,
    orientedHeight: turned ? width : height,
    frames: metadata.pages ?? 1,
  };
}

/**
 * The decoder must read the format the magic numbers named. The HEIF loader
 * also reads HEIC (HEVC), whose brands may claim AVIF compatibility: only AV1
 * passes.
 */
function checkDecoderAgrees(format: ImageFormat, metadata: Metadata): void {
  const decoded = metadata.format === 'heif' && metadata.compression === 'av1' ? 'avif' : metadata.format;
  if (decoded === format) return;
  if (metadata.format === 'heif') throw new UnsupportedImageTypeError('HEIC/HEIF files are not accepted');
  throw new UnsupportedImageTypeError(
    `the file's content is not the ${format.toUpperCase()} its header claims`,
  );
}
