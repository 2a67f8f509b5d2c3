import { type StoredObject, VARIANT_CACHE_CONTROL } from './object-store.ts';

/**
 * The headers a public variant is served with: its stored type (never
 * guessed by the browser: `nosniff`), its ETag for revalidation, and a
 * long-lived cache policy (the key never holds other bytes). Other sites
 * may show it in an `<img>` (`cross-origin-resource-policy: cross-origin`):
 * a logo or a photo is meant to be embedded, and the bytes are public.
 */
export function publicVariantHeaders(object: StoredObject): Record<string, string> {
  return {
    'content-type': object.contentType,
    'content-length': String(object.contentLength),
    etag: object.etag,
    'cache-control': object.cacheControl ?? VARIANT_CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'cross-origin',
    ...(object.lastModified ? { 'last-modified': object.lastModified.toUTCString() } : {}),
  };
}
