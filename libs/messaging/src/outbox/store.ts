import type { AnyEvent } from '@hireflow/contracts';
import type { EntityManager } from '@hireflow/db';

// The outbox table's SQL, in one place: the relay and pruning call these.

export interface PendingRow {
  id: string;
  topic: string;
  payload: AnyEvent | string;
  traceparent: string | null;
  tracestate: string | null;
  baggage: string | null;
}

/**
 * Locks up to `limit` rows due for publishing, oldest first, skipping rows
 * another relay holds: call inside the transaction that marks them.
 */
export function claimPending(tx: EntityManager, limit: number): Promise<PendingRow[]> {
  return tx.execute<PendingRow[]>(
    `SELECT id, topic, payload, traceparent, tracestate, baggage FROM outbox
     WHERE sent_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= now())
     ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`,
    [limit],
  );
}

export async function markSent(tx: EntityManager, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute('UPDATE outbox SET sent_at = now(), attempts = attempts + 1 WHERE id = ANY(?::bigint[])', [
    `{${ids.join(',')}}`,
  ]);
}

/** Counts a failed publish and backs the row off: random(0, min(5 min, 1 s * 2^attempts)). */
export async function markFailed(tx: EntityManager, id: string, error: string): Promise<void> {
  await tx.execute(
    `UPDATE outbox SET attempts = attempts + 1, last_error = ?,
       next_attempt_at = now() + make_interval(secs => random() * least(300, power(2, least(attempts, 16))))
     WHERE id = ?`,
    [error.slice(0, 2000), id],
  );
}

/** Deletes up to `limit` rows sent more than `olderThanMs` ago; returns how many. */
export async function deleteSent(em: EntityManager, olderThanMs: number, limit: number): Promise<number> {
  const deleted: unknown[] = await em.execute(
    `DELETE FROM outbox WHERE id IN (
       SELECT id FROM outbox WHERE sent_at IS NOT NULL AND sent_at < now() - (? * interval '1 millisecond')
       ORDER BY id LIMIT ?)
     RETURNING id`,
    [olderThanMs, limit],
  );
  return deleted.length;
}

/** Rows committed and not yet published, and the age of the oldest (seconds; 0 when none). */
export async function outboxStats(
  em: EntityManager,
): Promise<{ backlog: number; oldestUnsentAgeSeconds: number }> {
  const [row] = await em.execute<{ backlog: string; age: number | null }[]>(
    `SELECT count(*) AS backlog, extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM outbox WHERE sent_at IS NULL`,
  );
  return { backlog: Number(row?.backlog ?? 0), oldestUnsentAgeSeconds: Math.max(0, row?.age ?? 0) };
}
