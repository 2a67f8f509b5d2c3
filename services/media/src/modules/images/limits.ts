/** What one upload may cost. Every field is configurable; the worker and the route share one value. */
export interface ImageLimits {
  /** Bytes per file (the route answers 413 above it). */
  maxBytes: number;
  /** Width × height of the (first frame of the) image: a decompression bomb is refused before decoding. */
  maxPixels: number;
  /** Wall time for one image's work, decode to the last variant. */
  timeoutMs: number;
}

export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = {
  maxBytes: 10 * 1024 * 1024,
  maxPixels: 40_000_000,
  timeoutMs: 30_000,
};

/** Defaults overridden by `overrides`; a value that is not a positive integer is a programming error. */
export function imageLimits(overrides: Partial<ImageLimits> = {}): ImageLimits {
  const limits = { ...DEFAULT_IMAGE_LIMITS, ...definedOnly(overrides) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`image limit ${name} must be a positive integer, got ${value}`);
    }
  }
  return limits;
}

function definedOnly(overrides: Partial<ImageLimits>): Partial<ImageLimits> {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}
