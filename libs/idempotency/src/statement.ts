import type { Database, Sql } from '@hireflow/db';
import { signals } from '@hireflow/telemetry';
import { IdempotencyConflictError } from './errors.ts';
import { fingerprint as fingerprintOf } from './fingerprint.ts';
import { idempotent } from './idempotent.ts';
import { claimCompletedWith, DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS, runWithClaimed } from './store.ts';

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
  /**
   * Run the fast path as a named prepared statement (`executePrepared`):
   * parsed and planned once per connection instead of per call. Postgres then
   * types each parameter from its context, so one it cannot type (in a
   * SELECT list, as in `INSERT … SELECT ?, ? FROM claimed`) needs a cast:
   * `SELECT ?::uuid, ?::jsonb FROM claimed`.
   */
  prepared?: boolean;
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
  db: Sql | Database,
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
  const row = await claimCompletedWith(em, { key: options.key, fingerprint, ttlMs }, work);
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
      await runWithClaimed(tx, options.key, work);
      applied = true;
      return null;
    },
  );
  return applied;
}
