import type { Database, Sql } from '@hireflow/db';
import { uniqueName } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyInProgressError, idempotent } from '../src/index.ts';
import { backends, openTestOrm, type TestOrm } from './orm.ts';

// A replay (a key stored and not claimable) is settled by the claim
// statement's first look at the key: it changes no setting, tries no lock and
// draws no fencing token (store.ts, CLAIM_SQL).

/** The fencing-token sequence's last value drawn (by any session). */
async function lastToken(orm: Database): Promise<string | null> {
  const [row] = await orm.em
    .fork()
    .execute<{ last_value: string | null }[]>(
      `SELECT last_value::text FROM pg_sequences WHERE sequencename = 'processed_message_fencing_token_seq'`,
    );
  return row?.last_value ?? null;
}

/** What this transaction holds and has set: its advisory locks, its idle timeout. */
async function sessionState(tx: Sql): Promise<{ locks: number; idle: string }> {
  const [row] = await tx.execute<{ locks: number; idle: string }[]>(
    `SELECT (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS locks,
            current_setting('idle_in_transaction_session_timeout') AS idle`,
  );
  return row!;
}

describe.each(backends)('$name: replay of a stored key', ({ name }) => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await openTestOrm('idem-replay', 10, name);
  });
  afterAll(() => db.close());

  it('draws no fencing token, in lease mode and in transactional mode (owned or in a caller’s transaction)', async () => {
    const leaseKey = uniqueName('replay-lease');
    const txKey = uniqueName('replay-tx');
    let runs = 0;
    const work = async () => ({ run: ++runs });
    expect(await idempotent(db.target, { key: leaseKey }, work)).toEqual({ run: 1 });
    expect(await idempotent(db.target, { key: txKey, transactional: true }, work)).toEqual({ run: 2 });
    const before = await lastToken(db.orm);
    expect(before).not.toBeNull();
    for (let i = 0; i < 5; i++) {
      expect(await idempotent(db.target, { key: leaseKey }, work)).toEqual({ run: 1 });
      expect(await idempotent(db.target, { key: txKey, transactional: true }, work)).toEqual({ run: 2 });
      expect(await idempotent(db.target, { key: leaseKey, transactional: true }, work)).toEqual({ run: 1 });
      expect(
        await db.target.em.transactional((tx) => idempotent(tx, { key: txKey, transactional: true }, work)),
      ).toEqual({ run: 2 });
    }
    expect(runs).toBe(2);
    expect(await lastToken(db.orm)).toBe(before);
  });

  it('in a caller’s transaction takes no lock of the key and leaves the transaction’s idle timeout alone', async () => {
    const key = uniqueName('replay-in-tx');
    await idempotent(db.target, { key, leaseMs: 5_000 }, async () => 'done');
    const seen = await db.target.em.transactional(async (tx) => {
      const start = await sessionState(tx);
      const result = await idempotent(tx, { key, transactional: true, leaseMs: 5_000 }, async () => 'again');
      return { start, result, after: await sessionState(tx) };
    });
    expect(seen.result).toBe('done');
    expect(seen.after).toEqual(seen.start);
    expect(seen.after.locks).toBe(0);
    // A new key in the same kind of transaction does both (the claim's lease and lock).
    const fresh = await db.target.em.transactional(async (tx) => {
      await idempotent(
        tx,
        { key: uniqueName('fresh-in-tx'), transactional: true, leaseMs: 5_000 },
        async () => 1,
      );
      return sessionState(tx);
    });
    expect(fresh).toEqual({ locks: 1, idle: '5s' });
  });

  it('a stored key past its retention is still taken over only with its lock', async () => {
    const key = uniqueName('expired-locked');
    let runs = 0;
    await idempotent(db.target, { key }, async () => ++runs);
    await db.orm.em
      .fork()
      .execute(`UPDATE processed_message SET expires_at = now() - interval '1 second' WHERE key = ?`, [key]);
    // Another session holds the key's lock (as a transactional holder's takeover would).
    const holder = await db.orm.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      await expect(idempotent(db.target, { key }, async () => ++runs)).rejects.toBeInstanceOf(
        IdempotencyInProgressError,
      );
      await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
    } finally {
      holder.release(true);
    }
    expect(await idempotent(db.target, { key }, async () => ++runs)).toBe(2);
    expect(runs).toBe(2);
  });
});
