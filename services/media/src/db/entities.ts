import { defineEntity, p } from '@mikro-orm/core';

/** media's projection of the API keys jobs issues (apikey.issued.v1 / apikey.revoked.v1). */
export const ApiKeyProjection = defineEntity({
  name: 'ApiKeyProjection',
  tableName: 'api_key',
  properties: {
    keyId: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Null until the issued event arrives (a revocation may arrive first). */
    keyHash: p.string().nullable(),
    issuedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});

/** A variant as stored on the upload row; its URL is built from MEDIA_PUBLIC_URL when read. */
export interface StoredVariant {
  name: string;
  width: number;
  height: number;
  contentType: string;
  bytes: number;
}

export type OwnerType = 'job' | 'candidate';

export const Upload = defineEntity({
  name: 'Upload',
  tableName: 'upload',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    status: p.enum(['pending', 'ready', 'failed'] as const),
    ownerType: p.enum(['job', 'candidate'] as const).nullable(),
    ownerId: p.uuid().nullable(),
    /**
     * The owner is named but media has not heard of it (no job.posted.v1 /
     * candidate.registered.v1 of the tenant yet): the upload expires like one
     * without an owner unless the owner's event arrives in time.
     */
    ownerPending: p.boolean().default(false),
    /** Detected from the bytes, never from the client. */
    contentType: p.string(),
    sizeBytes: p.integer(),
    width: p.integer(),
    height: p.integer(),
    variants: p.json<StoredVariant[]>().nullable(),
    reason: p.text().nullable(),
    createdAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});

export type UploadEntity = InstanceType<typeof Upload.class>;
