import { executePrepared, isPgScope, type Sql } from '@hireflow/db';
import { uniqueName, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyInProgressError, idempotent } from '../src/index.ts';
import { backends, effectsOf, gate, openTestOrm, storedRow, type TestOrm } from './orm.ts';

describe.each(backends)('$name: idempotent, transactional mode', ({ name }) => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await openTestOrm('idem-tx', 10, name);
    // Failures injected at the database, where a real one would happen.
    await db.orm.em.fork().execute(`
      CREATE FUNCTION injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER claim_fails BEFORE INSERT ON processed_message FOR EACH ROW
        WHEN (NEW.key LIKE 'claim-fails%') EXECUTE FUNCTION injected_failure();
      CREATE TRIGGER completion_fails BEFORE UPDATE ON processed_message FOR EACH ROW
        WHEN (NEW.key LIKE 'completion-fails%' AND NEW.status = 'completed') EXECUTE FUNCTION injected_failure();`);
  });
  afterAll(() => db.close());

  const writeEffect =
    (key: string, ...ids: string[]) =>
    async (tx: Sql) => {
      for (const id of ids) await tx.execute('INSERT INTO effect (id, key) VALUES (?, ?)', [id, key]);
      return ids.length;
    };

  it('commits the claim, the write and the completion together, once', async () => {
    const key = uniqueName('tx-once');
    expect(await idempotent(db.target, { key, transactional: true }, writeEffect(key, `${key}-a`))).toBe(1);
    expect(await idempotent(db.target, { key, transactional: true }, writeEffect(key, `${key}-b`))).toBe(1);
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 1 });
  });

  it('a work with no result commits the key completed (null) with its write, in one statement less', async () => {
    const key = uniqueName('tx-void');
    const work = async (tx: Sql) => {
      await writeEffect(key, `${key}-a`)(tx);
    };
    expect(await idempotent(db.target, { key, transactional: true }, work)).toBeNull();
    expect(await idempotent(db.target, { key, transactional: true }, work)).toBeNull();
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: null });
    const [times] = await db.orm.em
      .fork()
      .execute<{ kept: boolean }[]>(
        "SELECT completed_at IS NOT NULL AND lease_expires_at IS NULL AND expires_at > now() + interval '14 days' AS kept FROM processed_message WHERE key = ?",
        [key],
      );
    expect(times).toEqual({ kept: true });
  });

  it('a work that nests a transaction and runs prepared statements stays in the one transaction', async () => {
    const key = uniqueName('tx-nested');
    const work = (fail: boolean) => async (tx: Sql) => {
      // The backend's own scope: the pg implementation's on its Database.
      expect(isPgScope(tx)).toBe(name === 'pg');
      await tx.transactional(async (inner) => {
        await inner.execute('INSERT INTO effect (id, key) VALUES (?, ?)', [`${key}-inner`, key]);
      });
      // a nested transaction that fails rolls back to its savepoint only
      await expect(
        tx.transactional(async (inner) => {
          await inner.execute('INSERT INTO effect (id, key) VALUES (?, ?)', [`${key}-undone`, key]);
          throw new Error('inner failure');
        }),
      ).rejects.toThrow('inner failure');
      await executePrepared(tx, 'INSERT INTO effect (id, key) VALUES (?::text, ?::text)', [
        `${key}-prepared`,
        key,
      ]);
      const [row] = await tx.execute<{ txid: string }[]>('SELECT txid_current_if_assigned()::text AS txid');
      if (fail) throw new Error('outer failure');
      return row?.txid ?? null;
    };
    await expect(idempotent(db.target, { key, transactional: true }, work(true))).rejects.toThrow(
      'outer failure',
    );
    expect(await effectsOf(db.orm, key)).toEqual([]);
    expect(await storedRow(db.orm, key)).toBeUndefined();
    const txid = await idempotent(db.target, { key, transactional: true }, work(false));
    expect(txid).not.toBeNull();
    expect((await effectsOf(db.orm, key)).sort()).toEqual([`${key}-inner`, `${key}-prepared`]);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: txid });
  });

  it('when the work’s write fails, neither the claim nor any of its writes remain, and a retry runs', async () => {
    const key = uniqueName('tx-write-fails');
    await db.orm.em.fork().execute('INSERT INTO effect (id, key) VALUES (?, ?)', [`${key}-taken`, 'other']);
    const failing = idempotent(
      db.target,
      { key, transactional: true },
      writeEffect(key, `${key}-a`, `${key}-taken`),
    );
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(await storedRow(db.orm, key)).toBeUndefined();
    expect(await effectsOf(db.orm, key)).toEqual([]);
    expect(await idempotent(db.target, { key, transactional: true }, writeEffect(key, `${key}-a`))).toBe(1);
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
  });

  it('when the claim fails, the work does not run and nothing is written', async () => {
    const key = uniqueName('claim-fails');
    let runs = 0;
    const work = async (tx: Sql) => {
      runs++;
      return writeEffect(key, `${key}-a`)(tx);
    };
    await expect(idempotent(db.target, { key, transactional: true }, work)).rejects.toThrow(
      'injected failure',
    );
    expect(runs).toBe(0);
    expect(await effectsOf(db.orm, key)).toEqual([]);
    expect(await storedRow(db.orm, key)).toBeUndefined();
  });

  it('when the completion fails after the work wrote, the write is rolled back with the claim', async () => {
    const key = uniqueName('completion-fails');
    const work = writeEffect(key, `${key}-a`);
    await expect(idempotent(db.target, { key, transactional: true }, work)).rejects.toThrow(
      'injected failure',
    );
    expect(await effectsOf(db.orm, key)).toEqual([]);
    expect(await storedRow(db.orm, key)).toBeUndefined();
  });

  it('50 concurrent calls: one write, the others replay or report in progress', async () => {
    const key = uniqueName('tx-fifty');
    let runs = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        idempotent(db.target, { key, transactional: true }, async (tx) => {
          runs++;
          return writeEffect(key, `${key}-${i}`)(tx);
        }),
      ),
    );
    expect(runs).toBe(1);
    expect(await effectsOf(db.orm, key)).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') expect(outcome.value).toBe(1);
      else expect(outcome.reason).toBeInstanceOf(IdempotencyInProgressError);
    }
  });

  it('keeps the claim invisible until commit, and tells duplicates "in progress" at once instead of blocking', async () => {
    const key = uniqueName('tx-inflight');
    const holding = gate();
    let entered = false;
    const holder = idempotent(db.target, { key, transactional: true }, async (tx) => {
      await writeEffect(key, `${key}-a`)(tx);
      entered = true;
      await holding.opened;
      return 'held';
    });
    await waitFor(() => entered);
    expect(await storedRow(db.orm, key)).toBeUndefined();
    for (const transactional of [true, false]) {
      const duplicate = idempotent(db.target, { key, transactional }, async () => 'dup');
      await expect(duplicate).rejects.toBeInstanceOf(IdempotencyInProgressError);
    }
    holding.open();
    expect(await holder).toBe('held');
    expect(await idempotent(db.target, { key, transactional: true }, async () => 'dup')).toBe('held');
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
  });

  it('takes over a completed key whose retention passed, in the same transaction as the write', async () => {
    const key = uniqueName('tx-expired');
    await idempotent(db.target, { key, transactional: true }, writeEffect(key, `${key}-a`));
    await db.orm.em
      .fork()
      .execute(`UPDATE processed_message SET expires_at = now() - interval '1 second' WHERE key = ?`, [key]);
    const failing = idempotent(
      db.target,
      { key, transactional: true },
      writeEffect(key, `${key}-b`, `${key}-a`),
    );
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 1 });
    expect(await idempotent(db.target, { key, transactional: true }, writeEffect(key, `${key}-b`))).toBe(1);
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`, `${key}-b`]);
  });
});
