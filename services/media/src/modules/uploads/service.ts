import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import type { Sql } from '@hireflow/db';
import { idFromKey } from '@hireflow/idempotency';
import { enqueueEvents, type Logger, outboxInsertStatement } from '@hireflow/messaging';
import type { OwnerType, StoredVariant } from '../../db/upload-types.ts';
import { type ImageLimits, inspectImage } from '../images/index.ts';
import type { AttachedUpload } from '../owners/store.ts';
import type { MediaStore } from '../storage/index.ts';
import { enqueueResize, type ResizeQueue } from './resize-queue.ts';
import { findUpload, finishUpload, insertUpload, tenantStoredBytes, type Upload } from './store.ts';

const SOURCE = 'hireflow/media' as const;

export interface AcceptUploadInput {
  tenantId: string;
  bytes: Buffer;
  owner: { ownerType: OwnerType; ownerId: string } | undefined;
  /** The request's scoped Idempotency-Key: the upload id derives from it. */
  idempotencyKey: string | null;
}

export interface UploadDeps {
  em: Sql;
  store: MediaStore;
  queue: ResizeQueue;
  limits: ImageLimits;
  /** Bytes of originals the tenant may keep stored. */
  quotaBytes: number;
  log: Logger;
}

/** The upload would take the tenant's stored originals over its quota. */
export class StorageQuotaError extends Error {
  constructor(quotaBytes: number) {
    super(`would take the tenant's stored images over its quota of ${quotaBytes} bytes`);
    this.name = 'StorageQuotaError';
  }
}

/**
 * Takes an upload: what can be refused without decoding (size, type from the
 * magic numbers, the pixel count its header claims) is refused here with an
 * ImageError; then the original goes to S3, the upload is recorded `pending`
 * and its resize task added. The task is added after the commit, bounded in
 * time: should that fail, the row waits for the worker's sweep, which adds
 * the task of any upload pending too long, so a row never stays without its
 * task (and a task never exists without its row).
 */
export async function acceptUpload(deps: UploadDeps, input: AcceptUploadInput): Promise<Upload> {
  const info = await inspectImage(input.bytes, deps.limits);
  // Checked before the bytes go to S3. Uploads racing each other may each pass
  // and overshoot the quota by their own sizes at most (docs/media.md).
  if ((await tenantStoredBytes(deps.em, input.tenantId)) + input.bytes.length > deps.quotaBytes) {
    throw new StorageQuotaError(deps.quotaBytes);
  }
  // With an Idempotency-Key the id derives from it: a retry after the key's
  // lease finds the upload it already made instead of making a second.
  const id = input.idempotencyKey ? idFromKey(`upload:${input.idempotencyKey}`) : randomUUID();
  await deps.store.putOriginal({ tenantId: input.tenantId, uploadId: id }, input.bytes, info.contentType);
  const created = await insertUpload(deps.em, {
    id,
    tenantId: input.tenantId,
    ownerType: input.owner?.ownerType ?? null,
    ownerId: input.owner?.ownerId ?? null,
    contentType: info.contentType,
    sizeBytes: input.bytes.length,
    width: info.orientedWidth,
    height: info.orientedHeight,
    createdAt: new Date(),
  });
  const upload = (await findUpload(deps.em, input.tenantId, id))!;
  if (created || upload.status === 'pending') {
    await enqueueResize(deps.queue, { uploadId: id, tenantId: input.tenantId }).catch((error: unknown) =>
      deps.log.warn({ err: error, uploadId: id }, 'resize task not added; the sweep will add it'),
    );
  }
  return upload;
}

/** The absolute URL a variant is served at (no API key: `<img>` sends none). */
export function variantUrl(publicUrl: string, uploadId: string, name: string): string {
  return `${publicUrl}/media/${uploadId}/${name}.webp`;
}

const publicVariants = (publicUrl: string, uploadId: string, variants: StoredVariant[]) =>
  variants.map(({ name, width, height, contentType }) => ({
    name,
    width,
    height,
    contentType,
    url: variantUrl(publicUrl, uploadId, name),
  }));

/**
 * The API's view of an upload. One without an owner, or whose owner media
 * has not heard of yet, shows when it expires (`unattachedTtlMs` after it was
 * accepted).
 */
export function toUploadView(upload: Upload, publicUrl: string, unattachedTtlMs: number) {
  const { ownerType, ownerId } = upload;
  const owned = ownerType && ownerId ? { ownerType, ownerId, ownerConfirmed: !upload.ownerPending } : null;
  const expires = !owned || upload.ownerPending;
  return {
    id: upload.id,
    status: upload.status,
    ...(upload.reason ? { reason: upload.reason } : {}),
    ...owned,
    uploadedAt: upload.createdAt.toISOString(),
    ...(expires ? { expiresAt: new Date(upload.createdAt.getTime() + unattachedTtlMs).toISOString() } : {}),
    variants: publicVariants(publicUrl, upload.id, upload.variants ?? []),
  };
}

/** `media.processed.v1` of a ready upload, with its owner or without. */
function processedEvent(
  upload: Pick<Upload, 'id' | 'tenantId' | 'createdAt'>,
  owner: { ownerType: OwnerType; ownerId: string } | undefined,
  variants: StoredVariant[],
  publicUrl: string,
) {
  return createEvent(
    'media.processed.v1',
    {
      uploadId: upload.id,
      tenantId: upload.tenantId,
      ...owner,
      uploadedAt: upload.createdAt.toISOString(),
      variants: publicVariants(publicUrl, upload.id, variants),
    },
    { source: SOURCE, subject: upload.id },
  );
}

/**
 * Marks a pending upload ready and announces `media.processed.v1`, in one
 * conditional statement: false (nothing written, nothing emitted) when the
 * upload is no longer pending. The event names the owner only when media
 * knows it at that instant (`owner_pending` false in the finishing row): an
 * upload whose owner is still unknown is announced without one, and with its
 * owner when the owner's event attaches it (`announceAttached`), so a posting
 * or candidate never shows an image that is going to expire.
 */
export function finishReady(
  em: Sql,
  upload: Upload,
  variants: StoredVariant[],
  publicUrl: string,
): Promise<boolean> {
  const { ownerType, ownerId } = upload;
  const ready = { status: 'ready' as const, variants };
  if (!ownerType || !ownerId) {
    const event = processedEvent(upload, undefined, variants, publicUrl);
    return finishUpload(em, upload.id, ready, [outboxInsertStatement(event, { from: 'finished' })]);
  }
  const owned = processedEvent(upload, { ownerType, ownerId }, variants, publicUrl);
  const unowned = processedEvent(upload, undefined, variants, publicUrl);
  return finishUpload(em, upload.id, ready, [
    outboxInsertStatement(owned, { from: 'finished WHERE NOT finished.owner_pending' }),
    outboxInsertStatement(unowned, { from: 'finished WHERE finished.owner_pending' }),
  ]);
}

/**
 * Writes `media.processed.v1` with its owner to the outbox in the caller's
 * transaction, one INSERT for every attached upload that is ready (it was
 * announced without one).
 * One still pending is announced with its owner when it finishes; a failed
 * one has nothing to show.
 */
export async function announceAttached(
  em: Sql,
  attached: AttachedUpload[],
  publicUrl: string,
): Promise<void> {
  const events = attached
    .filter((row) => row.status === 'ready' && row.variants)
    .map((row) =>
      processedEvent(
        { id: row.id, tenantId: row.tenant_id, createdAt: new Date(row.created_at) },
        { ownerType: row.owner_type, ownerId: row.owner_id },
        row.variants!,
        publicUrl,
      ),
    );
  await enqueueEvents(em, events);
}

/** Marks a pending upload failed with a reason a client may read, and announces `media.failed.v1`. */
export function finishFailed(em: Sql, upload: Upload, reason: string): Promise<boolean> {
  const event = createEvent(
    'media.failed.v1',
    { uploadId: upload.id, tenantId: upload.tenantId, reason },
    { source: SOURCE, subject: upload.id },
  );
  return finishUpload(em, upload.id, { status: 'failed', reason }, [
    outboxInsertStatement(event, { from: 'finished' }),
  ]);
}
