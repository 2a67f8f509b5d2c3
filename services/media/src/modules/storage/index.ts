export type { UploadRef } from './keys.ts';
export { originalKey, uploadPrefix, variantKey } from './keys.ts';
export type { GetObjectResult, MediaStore, StoredObject } from './object-store.ts';
export { createMediaStore, VARIANT_CACHE_CONTROL } from './object-store.ts';
export { publicVariantHeaders } from './public-headers.ts';
