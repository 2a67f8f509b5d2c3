import type { SqlScope } from '../sql.ts';
import { deleteSent } from './store.ts';

/** Sent rows are kept a week (to look into what was published), then pruned. */
export const DEFAULT_OUTBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Deletes rows sent more than `olderThanMs` ago, in slices of `limit` so no
 * single statement holds many locks. Pending rows are never touched.
 * Returns how many rows were deleted.
 */
export async function pruneOutbox(
  em: SqlScope,
  options: { olderThanMs?: number; limit?: number } = {},
): Promise<number> {
  const olderThanMs = options.olderThanMs ?? DEFAULT_OUTBOX_RETENTION_MS;
  const limit = options.limit ?? 5000;
  let total = 0;
  while (true) {
    const deleted = await deleteSent(em, olderThanMs, limit);
    total += deleted;
    if (deleted < limit) return total;
  }
}
