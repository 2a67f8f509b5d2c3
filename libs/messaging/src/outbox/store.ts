import type { AnyEvent } from '@hireflow/contracts';
import type pg from 'pg';
import type { SqlScope } from '../sql.ts';
import { OUTBOX_CHANNEL, OUTBOX_RELAY_ASLEEP_LOCK } from './migrations.ts';

// The outbox table's SQL, in one place: enqueueing (as a statement to
// compose), the relay's claim, mark and sleep, and pruning call these.

/** An outbox row's values, as `enqueueEvent` writes them. */
export interface OutboxRow {
  eventId: string;
  topic: string;
  type: string;
  payload: AnyEvent;
  traceparent: string | null;
  tracestate: string | null;
  baggage: string | null;
}

/** A statement for the scope's `execute` (`?` placeholders). */
export interface OutboxStatement {
  sql: string;
  params: unknown[];
}

/** The INSERT of one outbox row, from `from`'s rows when given (see `outboxInsertStatement`). */
export function insertStatement(
  row: OutboxRow,
  options: { from?: string; republish?: boolean },
): OutboxStatement {
  return {
    sql: `INSERT INTO outbox (event_id, topic, type, payload, traceparent, tracestate, baggage)
          SELECT ?::uuid, ?, ?, ?::jsonb, ?, ?, ?${options.from ? ` FROM ${options.from}` : ''}${options.republish ? REPUBLISH : ''}`,
    params: valuesOf(row),
  };
}

/** A row's values, in the order of the INSERT's columns. */
const valuesOf = (row: OutboxRow): unknown[] => [
  row.eventId,
  row.topic,
  row.type,
  JSON.stringify(row.payload),
  row.traceparent,
  row.tracestate,
  row.baggage,
];

/**
 * Inserts outbox rows on `em` in one statement, in their order (their ids
 * ascend as they are listed), as MikroORM's unit of work batched them.
 * `created_at` is when the row is written (`clock_timestamp()`), not when
 * its transaction began (the column's `now()`), as MikroORM's flush wrote it:
 * the relay's backlog age (`oldestUnsentAgeSeconds`, its alert) counts from
 * the write, not from a long transaction's start.
 */
export async function insertRows(em: SqlScope, rows: readonly OutboxRow[]): Promise<void> {
  await em.execute(
    `INSERT INTO outbox (event_id, topic, type, payload, traceparent, tracestate, baggage, created_at)
     VALUES ${rows.map(() => '(?::uuid, ?, ?, ?::jsonb, ?, ?, ?, clock_timestamp())').join(', ')}`,
    rows.flatMap(valuesOf),
  );
}

const REPUBLISH = `
          ON CONFLICT (event_id) DO UPDATE
            SET payload = EXCLUDED.payload, traceparent = EXCLUDED.traceparent, tracestate = EXCLUDED.tracestate,
                baggage = EXCLUDED.baggage, sent_at = NULL, attempts = 0, last_error = NULL, next_attempt_at = NULL`;

export interface PendingRow {
  id: string;
  topic: string;
  /**
   * The event as JSON text, as Postgres prints the jsonb: the relay parses it
   * once and publishes this text, where `pg` would parse the jsonb and the
   * relay serialise the object again (twice: its size, its message).
   */
  payload: string;
  traceparent: string | null;
  tracestate: string | null;
  baggage: string | null;
}

/**
 * The relay's batch on one pooled connection, in two round trips where a
 * unit of work takes four: `BEGIN` and the claim in one simple-protocol
 * query, then (after publishing) the failures' backoff, the sent rows' mark
 * and `COMMIT` in another. A simple-protocol query takes no parameters, so
 * the only values written into these texts are row ids (checked digits), the
 * batch size (an integer) and error messages (escaped as literals by `pg`).
 * When any statement of a query fails Postgres skips the rest, the
 * transaction is aborted, and the caller rolls back (or drops the connection).
 */
export async function claimPending(client: pg.PoolClient, limit: number): Promise<PendingRow[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`batch size must be a positive integer`);
  const results = (await client.query(
    `BEGIN;
     SELECT id, topic, payload::text AS payload, traceparent, tracestate, baggage FROM outbox
     WHERE sent_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= now())
     ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
  )) as unknown as pg.QueryResult<PendingRow>[];
  return results[1]!.rows;
}

/**
 * Ends the claim's transaction in one round trip: counts each failed publish
 * and backs its row off (random(0, min(5 min, 1 s * 2^attempts))), marks the
 * published rows sent and appends them to the event log in id order (the log
 * holds what was published, never what was not; a re-announced event, same
 * id, is logged once), then commits.
 */
export async function markAndCommit(
  client: pg.PoolClient,
  sent: string[],
  failures: { id: string; error: string }[],
): Promise<void> {
  const statements: string[] = [];
  if (failures.length > 0) {
    const ids = failures.map((f) => digits(f.id)).join(',');
    const errors = failures.map((f) => client.escapeLiteral(f.error.slice(0, 2000))).join(',');
    statements.push(
      `UPDATE outbox SET attempts = attempts + 1, last_error = failed.error,
         next_attempt_at = now() + make_interval(secs => random() * least(300, power(2, least(outbox.attempts, 16))))
       FROM unnest(ARRAY[${ids}]::bigint[], ARRAY[${errors}]::text[]) AS failed(id, error)
       WHERE outbox.id = failed.id`,
    );
  }
  if (sent.length > 0) {
    statements.push(
      `WITH sent AS (
         UPDATE outbox SET sent_at = now(), attempts = attempts + 1
          WHERE id = ANY('{${sent.map(digits).join(',')}}'::bigint[])
         RETURNING id, event_id, topic, type, payload, traceparent, tracestate, baggage, sent_at)
       INSERT INTO event_log (event_id, topic, type, payload, traceparent, tracestate, baggage, event_time, published_at)
       SELECT event_id, topic, type, payload, traceparent, tracestate, baggage, (payload->>'time')::timestamptz, sent_at
         FROM sent ORDER BY id
       ON CONFLICT (event_id) DO NOTHING`,
    );
  }
  statements.push('COMMIT');
  await client.query(statements.join(';\n'));
}

/** Ends a claim's transaction that took no row. */
export async function commitClaim(client: pg.PoolClient): Promise<void> {
  await client.query('COMMIT');
}

/** Rolls a claim's transaction back: its rows are pending again. */
export async function rollbackClaim(client: pg.PoolClient): Promise<void> {
  await client.query('ROLLBACK');
}

/**
 * Readies the relay's dedicated connection: it waits at most `lockTimeoutMs`
 * for the sleep lock (another relay may hold it), and hears the producers'
 * NOTIFY on OUTBOX_CHANNEL.
 */
export async function listenForCommits(listener: pg.Client, lockTimeoutMs: number): Promise<void> {
  await listener.query(`SET lock_timeout = '${Math.max(1, Math.round(lockTimeoutMs))}ms'`);
  await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
}

/** Takes OUTBOX_RELAY_ASLEEP_LOCK on the listener: producers NOTIFY only while a relay holds it. */
export async function takeSleepLock(listener: pg.Client): Promise<void> {
  await listener.query('SELECT pg_advisory_lock($1)', [OUTBOX_RELAY_ASLEEP_LOCK]);
}

export async function releaseSleepLock(listener: pg.Client): Promise<void> {
  await listener.query('SELECT pg_advisory_unlock($1)', [OUTBOX_RELAY_ASLEEP_LOCK]);
}

/** A row id as it may be written into a statement's text. */
function digits(id: string): string {
  if (!/^[0-9]{1,19}$/.test(id)) throw new Error(`not an outbox row id: ${JSON.stringify(id)}`);
  return id;
}

/** Deletes up to `limit` rows sent more than `olderThanMs` ago; returns how many. */
export async function deleteSent(em: SqlScope, olderThanMs: number, limit: number): Promise<number> {
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
  em: SqlScope,
): Promise<{ backlog: number; oldestUnsentAgeSeconds: number }> {
  const [row] = await em.execute<{ backlog: string; age: number | null }[]>(
    `SELECT count(*) AS backlog, extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM outbox WHERE sent_at IS NULL`,
  );
  return { backlog: Number(row?.backlog ?? 0), oldestUnsentAgeSeconds: Math.max(0, row?.age ?? 0) };
}
