import { executePrepared, type Sql } from '@hireflow/db';
import { IdempotencyConflictError, IdempotencyInProgressError } from './errors.ts';

// Every statement here runs on a `Sql` scope of @hireflow/db (issue 31).

/**
 * Keys outlive every redelivery window: SQS keeps a message at most 14 days,
 * so a key kept 15 days still catches the last possible redelivery.
 */
export const DEFAULT_RETENTION_MS = 15 * 24 * 60 * 60 * 1000;

/** Long enough for a typical handler; match it to the consumer's visibility timeout. */
export const DEFAULT_LEASE_MS = 30_000;

export interface ClaimRequest {
  key: string;
  /** Compared with the stored one when both are set; null skips the check. */
  fingerprint: string | null;
  leaseMs: number;
  ttlMs: number;
  /** In the caller's transaction: insert the row completed (see CLAIM_COMPLETED_SQL). */
  inTransaction?: boolean;
}

export type ClaimOutcome =
  /** `stored`: the row is already completed with a null result (a transactional claim's insert). */
  | {
      kind: 'claimed';
      token: string;
      stored: boolean;
      /**
       * Taken over from a holder whose lease ran out before it completed: that
       * holder may have done the work without recording it (it died, or it
       * could not reach the database and is still trying).
       */
      takenOver: boolean;
    }
  | { kind: 'completed'; result: unknown };

interface ClaimRow {
  /** Set when this statement inserted the claim. */
  token: string | null;
  /** The key's advisory lock was free: no other claim of the key is under way. */
  locked: boolean;
  status: 'in_progress' | 'completed' | null;
  result: unknown;
  fingerprint: string | null;
  remaining_ms: number | null;
  /** The stored row may be taken over: its lease or its retention has run out. */
  claimable: boolean | null;
}

// A claim first looks the key up (`existing`, in the statement's snapshot). A
// key stored and not claimable (completed within its retention, or a holder's
// lease still running) is settled by that look alone: the other CTEs produce
// no rows, so no setting is changed, no lock tried, no fencing token drawn
// and no insert tried (a replay is one read by primary key).
//
// Otherwise (no row, or one whose lease or retention has run out) the claim
// takes a transaction-scoped advisory lock on the key. Outside a transaction
// it lasts one statement; in transactional mode it is held until the holder
// commits, while its claim row is invisible to others, so they hear "in
// progress" at once instead of queueing on the unique index behind an
// uncommitted insert. A (64-bit hash) collision only makes a caller retry.
// Only with no row in the snapshot does it insert; a claimable row is taken
// over by TAKE_OVER_SQL, which needs the lock's answer.
//
// The `session` CTE makes the server end a transactional holder that idles
// longer than its lease (a stalled process), which rolls its claim back; the
// lock, and so the INSERT, read from it, so it is applied whenever the lock is
// taken. Outside a transaction it expires with the statement.
//
// The same statement reports what stood in the way when it inserted nothing:
// its last SELECT reads `existing` (the snapshot from before the statement,
// which never shows this statement's insert) and whether the lock was free. A
// new key and a duplicate of a completed key each cost this one statement
// (one round trip).
//
// All times come from the database clock, statement_timestamp() rather than
// now(), which a long transaction freezes.
const CLAIM_SQL = (status: 'in_progress' | 'completed') => `
WITH existing AS MATERIALIZED (
  SELECT status, result, fingerprint, lease_expires_at,
         CASE WHEN status = 'completed' THEN expires_at <= statement_timestamp()
              ELSE lease_expires_at <= statement_timestamp() END AS claimable
  FROM processed_message WHERE key = ?::text
),
session AS (
  SELECT set_config('idle_in_transaction_session_timeout', ?::text, true)
  WHERE NOT EXISTS (SELECT 1 FROM existing WHERE claimable IS NOT TRUE)
),
lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended(?::text, 0)) AS locked FROM session),
inserted AS (
  INSERT INTO processed_message (key, status, fencing_token, lease_expires_at, result, fingerprint, created_at,
                                 completed_at, expires_at)
  SELECT ?::text, '${status}', nextval('processed_message_fencing_token_seq'),
         ${status === 'completed' ? 'NULL::timestamptz' : "statement_timestamp() + ?::float8 * interval '1 millisecond'"},
         ${status === 'completed' ? "'null'::jsonb" : 'NULL::jsonb'}, ?::text,
         statement_timestamp(), ${status === 'completed' ? 'statement_timestamp()' : 'NULL::timestamptz'},
         statement_timestamp() + ?::float8 * interval '1 millisecond'
  FROM lock
  WHERE lock.locked AND NOT EXISTS (SELECT 1 FROM existing)
  ON CONFLICT (key) DO NOTHING
  RETURNING fencing_token::text AS token
)
SELECT (SELECT token FROM inserted) AS token, coalesce((SELECT locked FROM lock), false) AS locked,
       e.status, e.result, e.fingerprint,
       greatest(0, extract(epoch FROM e.lease_expires_at - statement_timestamp()) * 1000)::float8 AS remaining_ms,
       e.claimable
FROM (VALUES (1)) AS one (n) LEFT JOIN existing e ON true`;
export const CLAIM_IN_PROGRESS_SQL = CLAIM_SQL('in_progress');
// In a transaction the claim row is invisible until the work commits with
// it, so it is written completed at once (result null, retention from now):
// a null result needs no completion, another is one update of `result`
// alone, which changes no indexed column (a HOT update: no index entries).
export const CLAIM_COMPLETED_SQL = CLAIM_SQL('completed');

/** The claim statement's parameters, in its placeholders' order. */
export function claimParams(request: ClaimRequest): unknown[] {
  const { key, fingerprint, leaseMs, ttlMs } = request;
  const idleTimeout = asSetting(leaseMs);
  return request.inTransaction
    ? [key, idleTimeout, key, key, fingerprint, ttlMs]
    : [key, idleTimeout, key, key, leaseMs, fingerprint, ttlMs];
}

// Taking over a key whose holder's lease ran out (or whose retention passed)
// gives it a new fencing token, so the old holder's completion cannot match.
// Never across a fingerprint mismatch: another payload cannot steal a dead claim.
export const TAKE_OVER_SQL = `
WITH session AS (SELECT set_config('idle_in_transaction_session_timeout', ?::text, true))
UPDATE processed_message SET
  status = 'in_progress', fencing_token = nextval('processed_message_fencing_token_seq'),
  lease_expires_at = statement_timestamp() + ?::float8 * interval '1 millisecond', fingerprint = ?::text,
  result = NULL, created_at = statement_timestamp(), completed_at = NULL,
  expires_at = statement_timestamp() + ?::float8 * interval '1 millisecond'
FROM session
WHERE key = ?::text
  AND ((status = 'completed' AND expires_at <= statement_timestamp())
    OR (status = 'in_progress' AND lease_expires_at <= statement_timestamp()
        AND (fingerprint IS NULL OR ?::text IS NULL OR fingerprint = ?::text)))
RETURNING fencing_token::text AS token`;

// A key claimed by someone else an instant ago can be missing from the claim's
// snapshot, and a takeover can lose to another one: look again.
const CLAIM_ATTEMPTS = 5;

/**
 * Claims `key` for this caller, or reports the stored result of a completed
 * claim. Throws IdempotencyInProgressError while another holder's lease runs
 * and IdempotencyConflictError when the stored fingerprint differs.
 */
export async function claimKey(
  em: Sql,
  request: ClaimRequest,
  run: StatementRunner = (sql, params) => executePrepared(em, sql, params),
): Promise<ClaimOutcome> {
  const { key, fingerprint, leaseMs, ttlMs } = request;
  const idleTimeout = asSetting(leaseMs);
  const sql = request.inTransaction ? CLAIM_COMPLETED_SQL : CLAIM_IN_PROGRESS_SQL;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const [row] = await run<ClaimRow>(sql, claimParams(request));
    if (row?.token)
      return { kind: 'claimed', token: row.token, stored: request.inTransaction === true, takenOver: false };
    if (!row || row.status === null) {
      // Absent: committed by another after this snapshot (look again), or
      // not yet committed by a transactional holder, which has the lock.
      if (row?.locked) continue;
      throw new IdempotencyInProgressError(key, leaseMs);
    }
    // once its retention has passed, a key is forgotten, payload and all
    const forgotten = row.status === 'completed' && row.claimable;
    if (!forgotten && fingerprint !== null && row.fingerprint !== null && row.fingerprint !== fingerprint) {
      throw new IdempotencyConflictError(key);
    }
    if (!row.claimable) {
      if (row.status === 'completed') return { kind: 'completed', result: row.result };
      throw new IdempotencyInProgressError(key, row.remaining_ms ?? leaseMs);
    }
    if (!row.locked) throw new IdempotencyInProgressError(key, leaseMs);
    const [taken] = await run<{ token: string }>(TAKE_OVER_SQL, [
      idleTimeout,
      leaseMs,
      fingerprint,
      ttlMs,
      key,
      fingerprint,
      fingerprint,
    ]);
    // A completed key past its retention is forgotten; an unfinished one had a holder.
    if (taken) return { kind: 'claimed', token: taken.token, stored: false, takenOver: !forgotten };
  }
  throw new IdempotencyInProgressError(key, leaseMs);
}

/** Runs one statement (`?` placeholders) and returns its rows: on the scope's pool or transaction, or on an owned connection. */
export type StatementRunner = <T extends object>(sql: string, params: unknown[]) => Promise<T[]>;

/**
 * Stores the result; false when the token no longer holds the claim (fenced).
 * A row already completed by this token (a transactional claim) keeps its
 * times, so only `result` changes: no indexed column, a HOT update.
 */
export async function completeClaim(
  em: Sql,
  key: string,
  token: string,
  resultJson: string,
  ttlMs: number,
): Promise<boolean> {
  const rows = await executePrepared(em, `${COMPLETE_SQL} RETURNING 1 AS completed`, [
    resultJson,
    ttlMs,
    key,
    token,
  ]);
  return rows.length > 0;
}

/** The completion's update; parameters: result JSON, retention (ms), key, fencing token. */
const COMPLETE_SQL = `UPDATE processed_message
     SET status = 'completed', result = ?::jsonb, lease_expires_at = NULL,
         completed_at = CASE WHEN status = 'completed' THEN completed_at ELSE statement_timestamp() END,
         expires_at = CASE WHEN status = 'completed' THEN expires_at
                           ELSE statement_timestamp() + ?::float8 * interval '1 millisecond' END
     WHERE key = ?::text AND fencing_token = ?::bigint`;

/**
 * The completion, failing (division by zero, SQLSTATE 22012) when the token
 * no longer holds the claim: sent with COMMIT in one query, its error keeps
 * the COMMIT from running, so a refused completion commits nothing.
 */
export const COMPLETE_OR_FAIL_SQL = `WITH completed AS (${COMPLETE_SQL} RETURNING 1)
SELECT 1 / (SELECT count(*)::int FROM completed) AS completed`;
export const COMPLETION_REFUSED = '22012';

/** The statement that sets a transactional holder's lease (see setTransactionLease); parameter: asSetting(ms). */
export const TRANSACTION_LEASE_SQL = `SELECT set_config('idle_in_transaction_session_timeout', ?::text, true)`;

/**
 * Runs `statement` (one data-modifying statement) and stores the result in
 * the same statement; false when the token no longer holds the claim (the
 * statement's write commits all the same).
 */
export async function completeClaimWith(
  em: Sql,
  claim: { key: string; token: string; resultJson: string; ttlMs: number },
  statement: { sql: string; params: unknown[] },
): Promise<boolean> {
  const [row] = await em.execute<{ completed: boolean }[]>(
    `WITH completed AS (
       UPDATE processed_message
       SET status = 'completed', result = ?::jsonb, lease_expires_at = NULL,
           completed_at = statement_timestamp(), expires_at = statement_timestamp() + ? * interval '1 millisecond'
       WHERE key = ? AND fencing_token = ? AND status = 'in_progress'
       RETURNING 1
     ), effect AS (
     ${statement.sql}
     )
     SELECT EXISTS (SELECT 1 FROM completed) AS completed`,
    [claim.resultJson, claim.ttlMs, claim.key, claim.token, ...statement.params],
  );
  return row?.completed === true;
}

/** Gives the key up so that the next attempt runs the work; a no-op once fenced. */
export async function releaseClaim(em: Sql, key: string, token: string): Promise<boolean> {
  return updated(
    em,
    `DELETE FROM processed_message WHERE key = ? AND fencing_token = ? AND status = 'in_progress'`,
    [key, token],
  );
}

/**
 * Makes the lease last at least `leaseMs` from now (never shortens it, so a
 * heartbeat does not undo a longer extendLease); false when the token no
 * longer holds the claim.
 */
export async function renewLease(em: Sql, key: string, token: string, leaseMs: number): Promise<boolean> {
  return updated(
    em,
    `UPDATE processed_message
     SET lease_expires_at = greatest(lease_expires_at, statement_timestamp() + ? * interval '1 millisecond')
     WHERE key = ? AND fencing_token = ? AND status = 'in_progress'`,
    [leaseMs, key, token],
  );
}

/**
 * The lease of a transactional holder: the server ends its session (rolling
 * the claim back) when it idles longer than `leaseMs` between statements.
 */
export async function setTransactionLease(tx: Sql, leaseMs: number): Promise<void> {
  await tx.execute(`SELECT set_config('idle_in_transaction_session_timeout', ?, true)`, [asSetting(leaseMs)]);
}

/** Milliseconds as a Postgres setting value; 0 would mean "no timeout". */
export function asSetting(ms: number): string {
  return `${Math.max(1, Math.ceil(ms))}ms`;
}

async function updated(em: Sql, sql: string, params: unknown[]): Promise<boolean> {
  const result = await em.execute<{ affectedRows: number }>(sql, params, 'run');
  return result.affectedRows > 0;
}

/**
 * Deletes up to `batchSize` keys whose retention has passed (a claim whose
 * holder died only once its lease has passed too); returns how many.
 */
export async function deleteExpired(em: Sql, batchSize: number): Promise<number> {
  const { affectedRows } = await em.execute<{ affectedRows: number }>(
    `DELETE FROM processed_message WHERE key IN (
       SELECT key FROM processed_message
       WHERE expires_at <= statement_timestamp()
         AND (status = 'completed' OR lease_expires_at <= statement_timestamp())
       LIMIT ? FOR UPDATE SKIP LOCKED)`,
    [batchSize],
    'run',
  );
  return affectedRows;
}

// Claim (already completed), effect and completion in one autocommitted
// statement: they commit together or not at all, so the effect happens once,
// like the transactional mode, in one round trip instead of five. The claim
// takes the key's advisory lock (for the statement) like claimKey, so it never
// waits behind a transactional holder's uncommitted row. The last SELECT reads
// the snapshot from before the statement: when nothing was claimed it shows
// what stood in the way, so a duplicate of a completed key is settled here too.
const STATEMENT_SQL = (work: string) => `
WITH claimed AS (
  INSERT INTO processed_message (key, status, fencing_token, lease_expires_at, result, fingerprint,
                                 created_at, completed_at, expires_at)
  SELECT ?::text, 'completed', nextval('processed_message_fencing_token_seq'), NULL, 'null'::jsonb, ?::text,
         statement_timestamp(), statement_timestamp(), statement_timestamp() + ?::float8 * interval '1 millisecond'
  WHERE pg_try_advisory_xact_lock(hashtextextended(?::text, 0))
  ON CONFLICT (key) DO NOTHING
  RETURNING key
), effect AS (
${work}
)
SELECT EXISTS (SELECT 1 FROM claimed) AS claimed, pm.status, pm.fingerprint,
       pm.status = 'completed' AND pm.expires_at > statement_timestamp() AS kept
FROM (VALUES (1)) AS one (n) LEFT JOIN processed_message pm ON pm.key = ?::text`;

export interface StatementRow {
  claimed: boolean;
  status: 'in_progress' | 'completed' | null;
  fingerprint: string | null;
  kept: boolean | null;
}

/**
 * The fast path of idempotentStatement: claims `key` as completed and runs
 * `work` (which reads `claimed`) in one autocommitted statement; reports
 * whether it claimed, and otherwise what stood in the way.
 */
export async function claimCompletedWith(
  em: Sql,
  claim: { key: string; fingerprint: string | null; ttlMs: number },
  work: { sql: string; params: unknown[]; prepared?: boolean },
): Promise<StatementRow | undefined> {
  const params = [claim.key, claim.fingerprint, claim.ttlMs, claim.key, ...work.params, claim.key];
  const [row] = work.prepared
    ? await executePrepared<StatementRow>(em, STATEMENT_SQL(work.sql), params)
    : await em.execute<StatementRow[]>(STATEMENT_SQL(work.sql), params);
  return row;
}

/** The slow path's work: the same statement, with `claimed` given (the wrapper holds the claim). */
export async function runWithClaimed(
  tx: Sql,
  key: string,
  work: { sql: string; params: unknown[] },
): Promise<void> {
  await tx.execute(`WITH claimed AS (SELECT ?::text AS key) ${work.sql}`, [key, ...work.params]);
}

/** A statement of the work's, run as it is (transactional mode's completeWith). */
export async function runStatement(em: Sql, statement: { sql: string; params: unknown[] }): Promise<void> {
  await em.execute(statement.sql, statement.params);
}

/**
 * Claims many new keys in one statement, inside the caller's transaction (as
 * transactional mode claims one): each key whose advisory lock is free and
 * that has no row yet. Returns the claimed keys with their fencing tokens
 * (`key`, `token`); the others (a duplicate, a holder, a taken lock) are not
 * claimed here. Parameters: claimNewKeysParams. Its parameters are cast: the
 * IdempotentBatcher runs it as a prepared statement with BEGIN.
 *
 * As transactional mode's claim (CLAIM_COMPLETED_SQL), each row is written
 * completed at once, result null, retention from now: nobody sees it before
 * the transaction commits, and it commits only with the completions
 * (COMPLETE_CLAIMS_OR_FAIL_SQL), which then change `result` alone, no
 * indexed column: a HOT update, with no new index entry. (Claimed
 * `in_progress` and completed later, a row changed `expires_at`, which is
 * indexed: a new entry in both of its indexes for every key.)
 */
export const CLAIM_NEW_KEYS_SQL = `
WITH session AS (SELECT set_config('idle_in_transaction_session_timeout', ?::text, true))
INSERT INTO processed_message (key, status, fencing_token, lease_expires_at, result, created_at,
                               completed_at, expires_at)
SELECT k.key, 'completed', nextval('processed_message_fencing_token_seq'), NULL, 'null'::jsonb,
       statement_timestamp(), statement_timestamp(), statement_timestamp() + ?::float8 * interval '1 millisecond'
FROM session, jsonb_array_elements_text(?::jsonb) AS k (key)
WHERE pg_try_advisory_xact_lock(hashtextextended(k.key, 0))
ON CONFLICT (key) DO NOTHING
RETURNING key, fencing_token::text AS token`;

export function claimNewKeysParams(keys: string[], request: { leaseMs: number; ttlMs: number }): unknown[] {
  return [asSetting(request.leaseMs), request.ttlMs, JSON.stringify(keys)];
}

/**
 * Stores the results of many claims of this transaction (CLAIM_NEW_KEYS_SQL)
 * in one statement (HOT updates of `result`), failing (division by zero,
 * COMPLETION_REFUSED) unless it stored every one: sent with COMMIT in one
 * query, its error keeps the COMMIT from running. A null result is stored
 * already: leave it out. Parameters: completeClaimsParams.
 */
export const COMPLETE_CLAIMS_OR_FAIL_SQL = `
WITH completed AS (
  UPDATE processed_message pm SET result = v.result
  FROM jsonb_to_recordset(?::jsonb) AS v (key text, token bigint, result jsonb)
  WHERE pm.key = v.key AND pm.fencing_token = v.token AND pm.status = 'completed'
  RETURNING 1
)
SELECT 1 / (CASE WHEN (SELECT count(*) FROM completed) = ?::int THEN 1 ELSE 0 END) AS completed`;

export function completeClaimsParams(
  claims: { key: string; token: string; resultJson: string }[],
): unknown[] {
  const rows = claims.map(
    (c) => `{"key":${JSON.stringify(c.key)},"token":${c.token},"result":${c.resultJson}}`,
  );
  return [`[${rows.join(',')}]`, claims.length];
}
