// Typed outcomes of image work. Each has a stable `code`, a `reason` a client
// may read (fixed wording: never file content, never decoder output) and the
// HTTP status a route answers with when it meets the error on upload (the
// shared problem handler maps `statusCode` + `code`). All are permanent:
// the same bytes fail the same way, so a worker ends the upload `failed`
// with `reason` on the first attempt and never retries.

export type ImageErrorCode =
  | 'UNSUPPORTED_IMAGE_TYPE'
  | 'FILE_TOO_LARGE'
  | 'TOO_MANY_PIXELS'
  | 'CORRUPT_IMAGE'
  | 'IMAGE_TIMEOUT';

export class ImageError extends Error {
  readonly code: ImageErrorCode;
  readonly statusCode: number;
  /** Never retry: the same bytes give the same outcome. */
  readonly permanent = true;

  constructor(code: ImageErrorCode, statusCode: number, reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = new.target.name;
    this.code = code;
    this.statusCode = statusCode;
  }

  /** What the upload's `reason` says: the message, which holds no file content. */
  get reason(): string {
    return this.message;
  }
}

/** The bytes are not one of the accepted types (decided from magic numbers). */
export class UnsupportedImageTypeError extends ImageError {
  constructor(reason: string, options?: ErrorOptions) {
    super('UNSUPPORTED_IMAGE_TYPE', 415, reason, options);
  }
}

/** More bytes than the per-file limit. */
export class FileTooLargeError extends ImageError {
  readonly size: number;
  readonly limit: number;

  constructor(size: number, limit: number) {
    super('FILE_TOO_LARGE', 413, `the file is larger than the limit of ${limit} bytes`);
    this.size = size;
    this.limit = limit;
  }
}

/** Width × height above the pixel limit (a decompression bomb, or just too big). */
export class TooManyPixelsError extends ImageError {
  readonly width: number | undefined;
  readonly height: number | undefined;
  readonly limit: number;

  constructor(limit: number, dimensions?: { width: number; height: number }, options?: ErrorOptions) {
    const size = dimensions ? `${dimensions.width}×${dimensions.height} ` : '';
    super('TOO_MANY_PIXELS', 422, `the image ${size}has more than the limit of ${limit} pixels`, options);
    this.width = dimensions?.width;
    this.height = dimensions?.height;
    this.limit = limit;
  }
}

/** The decoder refused the data: truncated, corrupt, or not what its header says. */
export class CorruptImageError extends ImageError {
  constructor(reason: string, options?: ErrorOptions) {
    super('CORRUPT_IMAGE', 422, reason, options);
  }
}

/** Processing took longer than the limit (a pathological image must not hold a slot). */
export class ImageTimeoutError extends ImageError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, options?: ErrorOptions) {
    super('IMAGE_TIMEOUT', 422, `processing the image took longer than ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}

export function isImageError(error: unknown): error is ImageError {
  return error instanceof ImageError;
}
