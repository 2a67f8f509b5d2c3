import type { Database, Sql } from '@hireflow/db';
import { type Context, context } from '@opentelemetry/api';
import { idempotent } from './idempotent.ts';
import { OwnedTransaction } from './owned/store.ts';
import {
  CLAIM_NEW_KEYS_SQL,
  COMPLETE_CLAIMS_OR_FAIL_SQL,
  claimNewKeysParams,
  completeClaimsParams,
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
} from './store.ts';

export interface IdempotentBatcherOptions {
  /** Holders' lease, as `idempotent`'s transactional mode (an idle transaction is ended past it). */
  leaseMs?: number;
  ttlMs?: number;
  /** Most calls run in one transaction (default 10, an SQS receive batch). */
  maxBatch?: number;
}

interface Pending {
  key: string;
  work: (tx: Sql) => Promise<unknown>;
  /** The caller's context: its work runs in it, so its spans stay in its own trace. */
  context: Context;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Transactional mode for many keys at once. The calls that arrive together
 * (in one turn of the event loop: the messages of one SQS receive batch, each
 * dispatched to its handler) run in one transaction: their keys are claimed in
 * one statement, each work runs in turn in its caller's trace context, their
 * completions are one statement, and one COMMIT makes every effect and
 * completion durable together: a batch of ten costs two statements and one
 * commit of bookkeeping instead of ten claims, ten completions and ten commits.
 * As transactional mode, it owns its connection (OwnedTransaction): BEGIN
 * rides with the claim and COMMIT with the completions, two round trips for
 * the bookkeeping of a batch.
 *
 * What the batch cannot settle runs alone through `idempotent` (transactional):
 * a key not claimed in the batch (a duplicate, which gets its stored result;
 * another holder's, which gets IdempotencyInProgressError), and every call of
 * a batch in which any work failed: the transaction is rolled back whole and
 * each call is retried alone, so the one that fails fails on its own and the
 * others commit. Work must therefore have no effect outside the transaction.
 */
export class IdempotentBatcher {
  readonly #db: Database;
  readonly #leaseMs: number;
  readonly #ttlMs: number;
  readonly #maxBatch: number;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(db: Database, options: IdempotentBatcherOptions = {}) {
    this.#db = db;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#ttlMs = options.ttlMs ?? DEFAULT_RETENTION_MS;
    this.#maxBatch = options.maxBatch ?? 10;
  }

  /** Runs `work` at most once per key to completion, in a batch's transaction; resolves with its (JSON) result. */
  run<T>(key: string, work: (tx: Sql) => Promise<T>): Promise<T> {
    if (!key) return Promise.reject(new TypeError('IdempotentBatcher: the key is empty'));
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({
        key,
        work,
        context: context.active(),
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (this.#pending.length >= this.#maxBatch) this.#flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    if (batch.length === 1) {
      this.#alone(batch[0]!);
      return;
    }
    void this.#runBatch(batch);
  }

  #alone(call: Pending): void {
    context
      .with(call.context, () =>
        idempotent(
          this.#db,
          { key: call.key, transactional: true, leaseMs: this.#leaseMs, ttlMs: this.#ttlMs },
          (tx) => call.work(tx),
        ),
      )
      .then(call.resolve, call.reject);
  }

  async #runBatch(batch: Pending[]): Promise<void> {
    let claimedCalls: Pending[] = [];
    const results = new Map<Pending, string>();
    let tx: OwnedTransaction | undefined;
    let failed = false;
    try {
      tx = await OwnedTransaction.connect(this.#db);
      const rows = await tx.begin<{ key: string; token: string }>(
        CLAIM_NEW_KEYS_SQL,
        claimNewKeysParams(
          batch.map((call) => call.key),
          { leaseMs: this.#leaseMs, ttlMs: this.#ttlMs },
        ),
        [COMPLETE_CLAIMS_OR_FAIL_SQL],
      );
      const claimed = new Map(rows.map((row) => [row.key, row.token]));
      // A key twice in one batch is claimed once: its second call runs alone, after the commit.
      const taken = new Set<string>();
      claimedCalls = batch.filter((call) => {
        if (!claimed.has(call.key) || taken.has(call.key)) return false;
        taken.add(call.key);
        return true;
      });
      // One scope on the transaction's connection for the batch's works.
      await tx.work(async (em) => {
        for (const call of claimedCalls) {
          const result = await context.with(call.context, () => call.work(em));
          results.set(call, JSON.stringify(result) ?? 'null');
        }
      });
      // A claim's row went in completed with a null result: a null one needs no completion.
      const completions = claimedCalls
        .map((call) => ({ key: call.key, token: claimed.get(call.key)!, resultJson: results.get(call)! }))
        .filter((c) => c.resultJson !== 'null');
      // A completion refused (COMPLETION_REFUSED) keeps the COMMIT from running: the batch fails whole.
      // Holding the uncommitted rows, this transaction cannot be fenced out; the check is a guard.
      await tx.commit(
        completions.length > 0
          ? { sql: COMPLETE_CLAIMS_OR_FAIL_SQL, params: completeClaimsParams(completions) }
          : undefined,
      );
    } catch {
      failed = true;
    } finally {
      // Rolls back what is still open; a connection that broke is dropped, not reused.
      await tx?.release();
    }
    if (failed) {
      // Rolled back whole: every call again, alone, each with its own outcome.
      for (const call of batch) this.#alone(call);
      return;
    }
    for (const call of claimedCalls) call.resolve(JSON.parse(results.get(call)!));
    for (const call of batch) if (!results.has(call)) this.#alone(call);
  }
}
