import type { Database, Sql } from '@hireflow/db';
import { signals } from '@hireflow/telemetry';
import { IdempotencyInProgressError, IdempotencyLeaseLostError } from './errors.ts';
import { fingerprint } from './fingerprint.ts';
import { OwnedTransaction } from './owned/store.ts';
import {
  asSetting,
  COMPLETE_OR_FAIL_SQL,
  COMPLETION_REFUSED,
  claimKey,
  completeClaim,
  completeClaimWith,
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  releaseClaim,
  renewLease,
  runStatement,
  type StatementRunner,
  setTransactionLease,
  TAKE_OVER_SQL,
  TRANSACTION_LEASE_SQL,
} from './store.ts';

export interface IdempotentOptions {
  /** An intent key (`idempotencyKey(...)`) or a CloudEvent id; never generated per attempt. */
  key: string;
  /**
   * When given, its fingerprint is stored and a later call with the same key
   * and another payload fails with IdempotencyConflictError. Leave it out for
   * intent keys that deliberately collapse different payloads.
   */
  payload?: unknown;
  /** How long a holder may run before another caller may take the key over. */
  leaseMs?: number;
  /** How long a completed key (and its result) is kept. */
  ttlMs?: number;
  /**
   * Claim, work and completion commit in one transaction; the work gets the
   * transaction's scope. Use it when the work's effect is a write to
   * this database: the effect then happens exactly once.
   */
  transactional?: boolean;
  /** Renew the lease every leaseMs/2 while the work runs (not in transactional mode). Default true. */
  heartbeat?: boolean;
}

/** What the work learns about its claim. */
export interface IdempotencyClaim {
  key: string;
  /** Grows with every claim of any key; pass it on where a downstream write can be fenced. */
  fencingToken: string;
  /** Aborted when the lease is lost to another holder: stop, the result would be refused. */
  signal: AbortSignal;
  /**
   * The key was taken over from a holder whose lease ran out before it
   * completed. That holder may have done the work and still be trying to
   * record it (its database was unreachable, so it could neither renew nor
   * record): work with an effect outside this database should give it a
   * moment to land its record before doing the work again.
   */
  takenOver: boolean;
  /** Pushes the lease `ms` (default: the lease) past now; throws IdempotencyLeaseLostError when lost. */
  extendLease(ms?: number): Promise<void>;
  /**
   * Runs the work's last write, one data-modifying SQL statement (`?`
   * placeholders, no WITH of its own), and completes the claim with `result`
   * in that same statement: the write and the completion commit together,
   * one round trip instead of two. The work then returns `result`, and the
   * wrapper does not complete the claim again. When the claim was lost
   * meanwhile, the write still commits and IdempotencyLeaseLostError is thrown.
   */
  completeWith(em: Sql, result: unknown, statement: { sql: string; params: unknown[] }): Promise<void>;
}

/** The work, given a scope (@hireflow/db): the transaction's in transactional mode. */
export type IdempotentWork<T> = (em: Sql, claim: IdempotencyClaim) => Promise<T>;

/**
 * Runs `work` at most once per key to completion and returns its result; a
 * duplicate returns the stored result without running anything. The result
 * is stored as JSON, and every caller, the first included, gets its JSON form.
 *
 * Throws IdempotencyInProgressError (retryable) while another holder runs,
 * IdempotencyConflictError for another payload under the same key,
 * IdempotencyLeaseLostError when this holder was fenced out, and the work's
 * own error after releasing the claim so that a retry runs the work again.
 */
export async function idempotent<T>(
  db: Sql | Database,
  options: IdempotentOptions,
  work: IdempotentWork<T>,
): Promise<T> {
  if (!options.key) throw new TypeError('idempotent: the key is empty');
  const settings = {
    key: options.key,
    fingerprint: options.payload === undefined ? null : fingerprint(options.payload),
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    ttlMs: options.ttlMs ?? DEFAULT_RETENTION_MS,
  };
  // Given the Database, transactional mode owns the transaction's connection
  // (two round trips fewer), its work on one scope on that connection; given
  // a scope, which may be in a transaction of the caller's, it runs in (or
  // nested in) that transaction.
  if (options.transactional && 'em' in db) return runInOwnedTransaction(db, settings, work);
  const em = 'em' in db ? db.em.fork() : db;
  if (!options.transactional) return runWithLease(em, settings, options.heartbeat ?? true, work);
  return runInTransaction(em, settings, work);
}

type Settings = Parameters<typeof claimKey>[1];

async function runWithLease<T>(
  em: Sql,
  settings: Settings,
  heartbeat: boolean,
  work: IdempotentWork<T>,
): Promise<T> {
  const { key, leaseMs } = settings;
  // Bookkeeping commits on its own, outside any transaction the caller's EM is in.
  const store = em.fork();
  const outcome = await claimKeyObserved(store, settings);
  if (outcome.kind === 'completed') return outcome.result as T;
  const { token } = outcome;
  const lease = new AbortController();
  const lost = () => lease.abort(new IdempotencyLeaseLostError(key));
  let completedJson: string | undefined;
  let stopHeartbeat = noop;
  const claim: IdempotencyClaim = {
    key,
    fencingToken: token,
    signal: lease.signal,
    takenOver: outcome.takenOver,
    extendLease: async (ms = leaseMs) => {
      if (!(await renewLease(store, key, token, ms))) {
        lost();
        throw new IdempotencyLeaseLostError(key);
      }
    },
    completeWith: async (target, result, statement) => {
      // A renewal after the completion would find the claim gone and report it lost.
      stopHeartbeat();
      const json = toJson(result);
      if (
        !(await completeClaimWith(target, { key, token, resultJson: json, ttlMs: settings.ttlMs }, statement))
      ) {
        throw new IdempotencyLeaseLostError(key);
      }
      completedJson = json;
    },
  };
  stopHeartbeat = heartbeat
    ? startHeartbeat(() => renewLease(store, key, token, leaseMs), leaseMs, lost)
    : noop;
  let json: string;
  try {
    json = toJson(await work(em, claim));
  } catch (error) {
    stopHeartbeat();
    // If the release fails too, the claim simply expires with its lease.
    await releaseClaim(store, key, token).catch(noop);
    throw error;
  }
  stopHeartbeat();
  if (completedJson !== undefined) return JSON.parse(completedJson) as T;
  if (!(await completeClaim(store, key, token, json, settings.ttlMs))) {
    throw new IdempotencyLeaseLostError(key);
  }
  return JSON.parse(json) as T;
}

async function runInTransaction<T>(em: Sql, settings: Settings, work: IdempotentWork<T>): Promise<T> {
  const { key, leaseMs } = settings;
  // The claim row stays uncommitted until the work commits: a failed work
  // rolls it back with the work's writes, and a dead holder's connection
  // takes both with it. Meanwhile other callers are told "in progress", and
  // the server ends a holder idle longer than its lease (see claimKey).
  return em.transactional(async (tx) => {
    const outcome = await claimKeyObserved(tx, { ...settings, inTransaction: true });
    if (outcome.kind === 'completed') return outcome.result as T;
    const claim: IdempotencyClaim = {
      key,
      fencingToken: outcome.token,
      signal: new AbortController().signal,
      takenOver: outcome.takenOver,
      extendLease: (ms = leaseMs) => setTransactionLease(tx, ms),
      // In the transaction the write and the completion commit together anyway.
      completeWith: (target, _result, statement) => runStatement(target, statement),
    };
    const json = toJson(await work(tx, claim));
    // A new key's row went in completed with a null result: nothing to store for a null one.
    if (outcome.stored && json === 'null') return null as T;
    // Holding the uncommitted row, this transaction cannot be fenced out; the check is a guard.
    if (!(await completeClaim(tx, key, outcome.token, json, settings.ttlMs))) {
      throw new IdempotencyLeaseLostError(key);
    }
    return JSON.parse(json) as T;
  });
}

/**
 * Transactional mode on a connection of its own (owned/store.ts): BEGIN and the
 * claim in one round trip, the work on a scope in that transaction,
 * then the completion (when the result is not null) and COMMIT in one. The
 * same statements and guarantees as runInTransaction: the claim row commits
 * with the work's writes or not at all, and the claim's lease ends a holder
 * that idles in the transaction.
 */
async function runInOwnedTransaction<T>(
  owner: Database,
  settings: Settings,
  work: IdempotentWork<T>,
): Promise<T> {
  const { key, leaseMs, ttlMs } = settings;
  const tx = await OwnedTransaction.connect(owner);
  try {
    let begun = false;
    const run: StatementRunner = (sql, params) => {
      if (begun) return tx.run(sql, params);
      begun = true;
      // Every statement of the wrapper's is PREPAREd before BEGIN, never inside the transaction.
      return tx.begin(sql, params, [COMPLETE_OR_FAIL_SQL, TAKE_OVER_SQL, TRANSACTION_LEASE_SQL]);
    };
    const outcome = await claimKeyObserved(owner.em, { ...settings, inTransaction: true }, run);
    if (outcome.kind === 'completed') {
      await tx.commit();
      return outcome.result as T;
    }
    const claim: IdempotencyClaim = {
      key,
      fencingToken: outcome.token,
      takenOver: outcome.takenOver,
      signal: new AbortController().signal,
      extendLease: async (ms = leaseMs) => {
        await tx.run(TRANSACTION_LEASE_SQL, [asSetting(ms)]);
      },
      completeWith: (target, _result, statement) => runStatement(target, statement),
    };
    const json = toJson(await tx.work((scope) => work(scope, claim)));
    // A new key's row went in completed with a null result: nothing to store for a null one.
    if (outcome.stored && json === 'null') {
      await tx.commit();
      return null as T;
    }
    try {
      await tx.commit({ sql: COMPLETE_OR_FAIL_SQL, params: [json, ttlMs, key, outcome.token] });
    } catch (error) {
      // Holding the uncommitted row, this transaction cannot be fenced out; the check is a guard.
      if ((error as { code?: string }).code === COMPLETION_REFUSED) throw new IdempotencyLeaseLostError(key);
      throw error;
    }
    return JSON.parse(json) as T;
  } finally {
    await tx.release();
  }
}

/**
 * Renews a lease every half lease while work runs; calls `lost` once a renewal
 * says another holder has it. Returns the stop. Also the email worker's, for
 * its claim on the log row.
 */
export function startHeartbeat(renew: () => Promise<boolean>, leaseMs: number, lost: () => void): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    renew().then(
      (held) => {
        if (!held && !stopped) {
          stopped = true;
          clearInterval(timer);
          lost();
        }
      },
      // A failed renewal is tried again at the next tick; the lease covers the gap.
      noop,
    );
  }, leaseMs / 2);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** Claims the key, reporting what the wrapper saved (a duplicate) to the process's metrics. */
async function claimKeyObserved(em: Sql, settings: Settings, run?: StatementRunner) {
  try {
    const outcome = await claimKey(em, settings, run);
    if (outcome.kind === 'completed') signals.idempotency.publish({ outcome: 'duplicate' });
    return outcome;
  } catch (error) {
    if (error instanceof IdempotencyInProgressError) signals.idempotency.publish({ outcome: 'in-progress' });
    throw error;
  }
}

function toJson(result: unknown): string {
  return JSON.stringify(result) ?? 'null';
}

function noop(): void {}
