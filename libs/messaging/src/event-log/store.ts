import type { AnyEvent } from '@hireflow/contracts';
import type { SqlScope } from '../sql.ts';

// The event log's SQL, in one place: the admin route reads it, the relay's
// housekeeping prunes it (the outbox's markSent appends to it).

export interface LoggedEventRow {
  position: string;
  payload: AnyEvent | string;
  traceparent: string | null;
  tracestate: string | null;
  baggage: string | null;
}

export interface EventLogQuery {
  /** Catalog types (validated by the caller); empty: every type. */
  types: string[];
  /** Event time (the CloudEvent's `time`) at or after. */
  since?: Date | undefined;
  /** Event time before. */
  until?: Date | undefined;
  /** Position to continue after (the previous page's cursor). */
  after?: string | undefined;
  limit: number;
}

/** Up to `limit` published events in log (publication) order, after the cursor. */
export function readEventLog(em: SqlScope, query: EventLogQuery): Promise<LoggedEventRow[]> {
  const conditions = ['position > ?'];
  const params: unknown[] = [query.after ?? '0'];
  if (query.types.length > 0) {
    conditions.push('type = ANY(?::text[])');
    params.push(`{${query.types.join(',')}}`);
  }
  if (query.since) {
    conditions.push('event_time >= ?');
    params.push(query.since);
  }
  if (query.until) {
    conditions.push('event_time < ?');
    params.push(query.until);
  }
  return em.execute<LoggedEventRow[]>(
    // Ordered by the column, not by the text alias (which would sort '10' before '9').
    `SELECT position::text AS position, payload, traceparent, tracestate, baggage FROM event_log
     WHERE ${conditions.join(' AND ')} ORDER BY event_log.position LIMIT ?`,
    [...params, query.limit],
  );
}

/** Deletes up to `limit` entries published more than `olderThanMs` ago; returns how many. */
export async function deleteLoggedBefore(em: SqlScope, olderThanMs: number, limit: number): Promise<number> {
  const deleted: unknown[] = await em.execute(
    `DELETE FROM event_log WHERE position IN (
       SELECT position FROM event_log WHERE published_at < now() - (? * interval '1 millisecond')
       ORDER BY position LIMIT ?)
     RETURNING position`,
    [olderThanMs, limit],
  );
  return deleted.length;
}
