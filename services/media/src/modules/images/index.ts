export type { ImageErrorCode } from './errors.ts';
export {
  CorruptImageError,
  FileTooLargeError,
  ImageError,
  ImageTimeoutError,
  isImageError,
  TooManyPixelsError,
  UnsupportedImageTypeError,
} from './errors.ts';
export type { ImageFormat, ImageTypeDetection } from './image-type.ts';
export {
  ACCEPTED_IMAGE_FORMATS,
  detectImageType,
  IMAGE_CONTENT_TYPES,
  IMAGE_TYPE_HEAD_BYTES,
} from './image-type.ts';
export type { ImageInfo } from './inspect.ts';
export { inspectImage } from './inspect.ts';
export type { ImageLimiter, ImageLimiterOptions } from './limiter.ts';
export { createImageLimiter } from './limiter.ts';
export type { ImageLimits } from './limits.ts';
export { DEFAULT_IMAGE_LIMITS, imageLimits } from './limits.ts';
export { configureSharp } from './sharp-settings.ts';
export type { MakeVariantsOptions, Variant, VariantName, VariantSpec, VariantsResult } from './variants.ts';
export {
  makeVariants,
  VARIANT_CONTENT_TYPE,
  VARIANT_SPECS,
  VARIANT_WEBP_OPTIONS,
} from './variants.ts';
