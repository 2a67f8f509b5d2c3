import type { Sql } from '@hireflow/db';
import { VARIANT_SPECS } from '../images/variants.ts';
import { attachKnownOwners } from '../owners/store.ts';
import { type MediaStore, originalKey, variantKey } from '../storage/index.ts';
import { announceAttached } from './service.ts';
import { deleteExpiredUpload, expirableUploads } from './store.ts';

export interface ExpiryResult {
  /** Uploads whose owner the projection now holds, attached before anything was removed. */
  attached: number;
  /** The ids removed. */
  removed: string[];
}

/**
 * Uploads sent without an owner, or naming a posting or candidate media has
 * not heard of in the tenant (modules/owners), are kept `olderThanMs`
 * (MEDIA_UNATTACHED_TTL_MS, 1 h), time enough to use the URL or for the
 * owner's event to arrive, then removed, so nobody can park files in
 * Hireflow's bucket (docs/media.md).
 *
 * First every pending owner the projection holds is attached (the race of an
 * upload with its owner's event) and, when ready, announced with its owner.
 * Then each upload is removed in its own
 * transaction: the row deleted (only if it still expires), its bytes deleted
 * from S3, then the commit. A failed S3 delete rolls the row back for the next
 * run; a crash after the bytes went leaves a row the next run removes.
 */
export async function expireUnattachedUploads(
  em: Sql,
  store: MediaStore,
  options: { olderThanMs: number; publicUrl: string; limit?: number },
): Promise<ExpiryResult> {
  const attached = await em.transactional(async (tx) => {
    const rows = await attachKnownOwners(tx);
    await announceAttached(tx, rows, options.publicUrl);
    return rows.length;
  });
  const removed: string[] = [];
  for (const row of await expirableUploads(em, options.olderThanMs, options.limit ?? 200)) {
    const ref = { tenantId: row.tenant_id, uploadId: row.id };
    const gone = await em.transactional(async (tx) => {
      if (!(await deleteExpiredUpload(tx, row.id))) return false;
      await store.delete([originalKey(ref), ...VARIANT_SPECS.map((spec) => variantKey(ref, spec.name))]);
      return true;
    });
    if (gone) removed.push(row.id);
  }
  return { attached, removed };
}
