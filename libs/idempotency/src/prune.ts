import type { Database, Sql } from '@hireflow/db';
import { deleteExpired } from './store.ts';

export interface PruneOptions {
  /** Rows deleted per statement (and per transaction), so pruning never holds long locks. Default 1000. */
  batchSize?: number;
}

/**
 * Deletes keys whose retention has passed, batch by batch, and returns how
 * many went. A completed key goes once its `expires_at` is past; a claim
 * whose holder died goes once both its lease and its retention are past, so a
 * live holder never loses its row. Run it on a schedule (a repeatable BullMQ
 * job); several runners at once skip each other's rows.
 */
export async function pruneExpired(db: Sql | Database, options: PruneOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new TypeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  const em = ('em' in db ? db.em : db).fork();
  let total = 0;
  while (true) {
    const affectedRows = await deleteExpired(em, batchSize);
    total += affectedRows;
    if (affectedRows < batchSize) return total;
  }
}
