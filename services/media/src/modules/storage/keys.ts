// Where an upload's bytes live in the bucket. One prefix per upload, under its
// tenant, so that everything of a tenant (or an upload) can be listed or
// deleted by prefix, and no key is ever reused for other bytes: an upload id
// is new for each upload, which makes variant URLs safe to cache forever.
//
//   uploads/{tenantId}/{uploadId}/original          the bytes as uploaded
//   uploads/{tenantId}/{uploadId}/{variant}.webp    thumb.webp, medium.webp

import type { VariantName } from '../images/variants.ts';

export interface UploadRef {
  tenantId: string;
  uploadId: string;
}

// ids become path segments: nothing that could climb out of the prefix or need escaping
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function uploadPrefix({ tenantId, uploadId }: UploadRef): string {
  return `uploads/${segment('tenantId', tenantId)}/${segment('uploadId', uploadId)}/`;
}

export function originalKey(upload: UploadRef): string {
  return `${uploadPrefix(upload)}original`;
}

export function variantKey(upload: UploadRef, variant: VariantName): string {
  return `${uploadPrefix(upload)}${segment('variant', variant)}.webp`;
}

function segment(name: string, value: string): string {
  if (!SEGMENT.test(value))
    throw new RangeError(`${name} is not a valid key segment (letters, digits, - and _)`);
  return value;
}
