import type { EntityManager } from '@hireflow/db';
import { VARIANT_SPECS } from '../images/variants.ts';
import { type MediaStore, originalKey, variantKey } from '../storage/index.ts';
import { deleteUpload, unattachedUploads } from './store.ts';

/**
 * Uploads sent without an owner (no posting or candidate to show them) are
 * kept `olderThanMs` (MEDIA_UNATTACHED_TTL_MS, 1 h), time enough to use the
 * URL, then removed: bytes first (original and variants), then the row, so
 * nobody can park files in Hireflow's bucket (docs/media.md). Returns the
 * ids removed.
 */
export async function expireUnattachedUploads(
  em: EntityManager,
  store: MediaStore,
  options: { olderThanMs: number; limit?: number },
): Promise<string[]> {
  const removed: string[] = [];
  for (const row of await unattachedUploads(em, options.olderThanMs, options.limit ?? 200)) {
    const ref = { tenantId: row.tenant_id, uploadId: row.id };
    await store.delete([originalKey(ref), ...VARIANT_SPECS.map((spec) => variantKey(ref, spec.name))]);
    await deleteUpload(em, row.id);
    removed.push(row.id);
  }
  return removed;
}
