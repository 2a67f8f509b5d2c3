import type { EntityManager, MikroORM } from '@hireflow/db';
import { signals } from '@hireflow/telemetry';
import { IdempotencyConflictError } from './errors.ts';
import { fingerprint as fingerprintOf } from './fingerprint.ts';
import { idempotent } from './idempotent.ts';
import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS } from './store.ts';

export interface IdempotentStatementOptions {
  /** An intent key or a CloudEvent id, as for `idempotent`. */
  key: string;
  /** Fingerprinted as with `idempotent`: another payload under the key is a conflict. */
  payload?: unknown;
  /** Lease of the fallback path (a key taken over after its holder died). */
  leaseMs?: number;
  /** How long the completed key is kept. */
  ttlMs?: number;
}

/**
 * The work as one data-modifying SQL statement (INSERT, UPDATE or DELETE,
 * `?` placeholders) that reads the relation `claimed`: it holds one row
 * (`key`) when this call claimed the key and none for a duplicate, so the
 * effect is written `INSERT … SELECT … FROM claimed` or `… WHERE EXISTS
 * (SELECT 1 FROM claimed)`. It may not have a WITH of its own.
 */
export interface StatementWork {
  sql: string;
  params: unknown[];
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
  SELECT ?, 'completed', nextval('processed_message_fencing_token_seq'), NULL, 'null'::jsonb, ?,
         statement_timestamp(), statement_timestamp(), statement_timestamp() + ? * interval '1 millisecond'
  WHERE pg_try_advisory_xact_lock(hashtextextended(?, 0))
  ON CONFLICT (key) DO NOTHING
  RETURNING key
), effect AS (
${work}
)
SELECT EXISTS (SELECT 1 FROM claimed) AS claimed, pm.status, pm.fingerprint,
       pm.status = 'completed' AND pm.expires_at > statement_timestamp() AS kept
FROM (VALUES (1)) AS one (n) LEFT JOIN processed_message pm ON pm.key = ?`;

interface StatementRow {
  claimed: boolean;
  status: 'in_progress' | 'completed' | null;
  fingerprint: string | null;
  kept: boolean | null;
}

/**
 * Runs a one-statement effect at most once per key, folding the claim and
 * its completion into the effect's own statement (one round trip, one
 * commit). Returns true when this call applied the effect, false for a
 * duplicate (nothing written). Anything else the fast statement cannot settle
 * (a key held by another holder, a dead holder's lease, a key past its
 * retention, a race on the key's lock) goes through the transactional
 * wrapper, with its errors: IdempotencyInProgressError while another holder
 * runs, IdempotencyConflictError for another payload.
 *
 * The stored result is `null`: use it for effects whose caller needs no result.
 */
export async function idempotentStatement(
  db: EntityManager | MikroORM,
  options: IdempotentStatementOptions,
  work: StatementWork,
): Promise<boolean> {
  if (!options.key) throw new TypeError('idempotentStatement: the key is empty');
  if (!/\bclaimed\b/.test(work.sql)) {
    throw new TypeError(
      'idempotentStatement: the statement must read `claimed`, or it runs for duplicates too',
    );
  }
  const em = 'em' in db ? db.em.fork() : db;
  const fingerprint = options.payload === undefined ? null : fingerprintOf(options.payload);
  const ttlMs = options.ttlMs ?? DEFAULT_RETENTION_MS;
  const [row] = await em.execute<StatementRow[]>(STATEMENT_SQL(work.sql), [
    options.key,
    fingerprint,
    ttlMs,
    options.key,
    ...work.params,
    options.key,
  ]);
  if (row?.claimed) return true;
  if (row?.status === 'completed' && row.kept) {
    if (fingerprint !== null && row.fingerprint !== null && row.fingerprint !== fingerprint) {
      throw new IdempotencyConflictError(options.key);
    }
    signals.idempotency.publish({ outcome: 'duplicate' });
    return false;
  }
  // The slow path: the wrapper claims (or takes over), and the same statement runs with `claimed` given.
  let applied = false;
  await idempotent(
    em,
    {
      key: options.key,
      transactional: true,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      ttlMs,
      ...(options.payload === undefined ? {} : { payload: options.payload }),
    },
    async (tx) => {
      await tx.execute(`WITH claimed AS (SELECT ?::text AS key) ${work.sql}`, [options.key, ...work.params]);
      applied = true;
      return null;
    },
  );
  return applied;
}
