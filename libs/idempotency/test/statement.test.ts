import type { Sql } from '@hireflow/db';
import { uniqueName, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IdempotencyClaim,
  IdempotencyConflictError,
  IdempotencyInProgressError,
  IdempotencyLeaseLostError,
  idempotent,
  idempotentStatement,
} from '../src/index.ts';
import { backends, effectsOf, expireLease, gate, openTestOrm, storedRow, type TestOrm } from './orm.ts';

describe.each(backends)(
  '$name: idempotentStatement: claim, effect and completion in one statement',
  ({ name }) => {
    let db: TestOrm;
    beforeAll(async () => {
      db = await openTestOrm('idem-statement', 10, name);
    });
    afterAll(() => db.close());

    const insertEffect = (id: string, key: string) => ({
      sql: 'INSERT INTO effect (id, key) SELECT ?, ? FROM claimed',
      params: [id, key],
    });

    it('applies the effect once and completes the key in the same statement', async () => {
      const key = uniqueName('stmt-once');
      expect(await idempotentStatement(db.target, { key }, insertEffect(`${key}-a`, key))).toBe(true);
      expect(await idempotentStatement(db.target, { key }, insertEffect(`${key}-b`, key))).toBe(false);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: null });
    });

    it('prepared (parameters cast): once, a duplicate writes nothing, a failing effect keeps no claim', async () => {
      const key = uniqueName('stmt-prepared');
      const prepared = (id: string) => ({
        sql: 'INSERT INTO effect (id, key) SELECT ?::text, ?::text FROM claimed',
        params: [id, key],
        prepared: true,
      });
      expect(await idempotentStatement(db.target, { key }, prepared(`${key}-a`))).toBe(true);
      expect(await idempotentStatement(db.target, { key }, prepared(`${key}-b`))).toBe(false);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: null });
      const other = uniqueName('stmt-prepared-fails');
      await expect(
        idempotentStatement(db.target, { key: other }, prepared(`${key}-a`)),
      ).rejects.toMatchObject({
        code: '23505',
      });
      expect(await storedRow(db.orm, other)).toBeUndefined();
    });

    it('when the effect fails, the claim is not kept and a retry applies it', async () => {
      const key = uniqueName('stmt-fails');
      await db.orm.em.fork().execute('INSERT INTO effect (id, key) VALUES (?, ?)', [`${key}-taken`, 'other']);
      await expect(
        idempotentStatement(db.target, { key }, insertEffect(`${key}-taken`, key)),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await storedRow(db.orm, key)).toBeUndefined();
      expect(await idempotentStatement(db.target, { key }, insertEffect(`${key}-a`, key))).toBe(true);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
    });

    it('concurrent calls with one key apply the effect exactly once', async () => {
      const key = uniqueName('stmt-race');
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          idempotentStatement(db.target, { key }, insertEffect(`${key}-${i}`, key)).catch(
            (error: unknown) => {
              if (error instanceof IdempotencyInProgressError) return 'in-progress';
              throw error;
            },
          ),
        ),
      );
      expect(outcomes.filter((o) => o === true)).toHaveLength(1);
      expect(await effectsOf(db.orm, key)).toHaveLength(1);
    });

    it('while a transactional holder runs, a call is told "in progress" and writes nothing', async () => {
      const key = uniqueName('stmt-held');
      const holding = gate();
      const release = gate();
      const holder = idempotent(db.target, { key, transactional: true }, async (tx) => {
        await tx.execute('INSERT INTO effect (id, key) VALUES (?, ?)', [`${key}-holder`, key]);
        holding.open();
        await release.opened;
        return 1;
      });
      await holding.opened;
      await expect(
        idempotentStatement(db.target, { key }, insertEffect(`${key}-b`, key)),
      ).rejects.toBeInstanceOf(IdempotencyInProgressError);
      release.open();
      await holder;
      expect(await idempotentStatement(db.target, { key }, insertEffect(`${key}-c`, key))).toBe(false);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-holder`]);
    });

    it('refuses another payload under the same key', async () => {
      const key = uniqueName('stmt-conflict');
      expect(
        await idempotentStatement(db.target, { key, payload: { a: 1 } }, insertEffect(`${key}-a`, key)),
      ).toBe(true);
      await expect(
        idempotentStatement(db.target, { key, payload: { a: 2 } }, insertEffect(`${key}-b`, key)),
      ).rejects.toBeInstanceOf(IdempotencyConflictError);
      expect(
        await idempotentStatement(db.target, { key, payload: { a: 1 } }, insertEffect(`${key}-c`, key)),
      ).toBe(false);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
    });

    it('a key past its retention is forgotten: the effect applies again', async () => {
      const key = uniqueName('stmt-expired');
      expect(await idempotentStatement(db.target, { key }, insertEffect(`${key}-a`, key))).toBe(true);
      await db.orm.em.fork().execute('UPDATE processed_message SET expires_at = now() WHERE key = ?', [key]);
      expect(await idempotentStatement(db.target, { key }, insertEffect(`${key}-b`, key))).toBe(true);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`, `${key}-b`]);
    });

    it('refuses a statement that does not read `claimed`', async () => {
      await expect(
        idempotentStatement(
          db.target,
          { key: uniqueName('stmt-bad') },
          { sql: 'DELETE FROM effect', params: [] },
        ),
      ).rejects.toBeInstanceOf(TypeError);
    });
  },
);

describe.each(backends)(
  '$name: claim.completeWith: the work’s last write and the completion in one statement',
  ({ name }) => {
    let db: TestOrm;
    beforeAll(async () => {
      db = await openTestOrm('idem-complete-with', 10, name);
    });
    afterAll(() => db.close());

    const write = (id: string, key: string) => ({
      sql: 'INSERT INTO effect (id, key) VALUES (?, ?)',
      params: [id, key],
    });

    it('commits the write and the stored result together; duplicates get the result and write nothing', async () => {
      const key = uniqueName('complete-with');
      let runs = 0;
      const work = async (em: Sql, claim: IdempotencyClaim) => {
        runs++;
        await claim.completeWith(em, { sent: runs }, write(`${key}-${runs}`, key));
        return { sent: runs };
      };
      expect(await idempotent(db.target, { key }, work)).toEqual({ sent: 1 });
      expect(await idempotent(db.target, { key }, work)).toEqual({ sent: 1 });
      expect(runs).toBe(1);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-1`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: { sent: 1 } });
    });

    it('a holder fenced out meanwhile: its write commits, it is told the lease was lost, the new holder’s result stays', async () => {
      const key = uniqueName('complete-with-fenced');
      const leaseMs = 200;
      const holding = gate();
      let started = false;
      const old = idempotent(db.target, { key, leaseMs, heartbeat: false }, async (em, claim) => {
        started = true;
        await holding.opened;
        await claim.completeWith(em, 'old', write(`${key}-old`, key));
        return 'old';
      });
      await waitFor(() => started);
      await expireLease(db.orm, key);
      expect(await idempotent(db.target, { key }, async () => 'new')).toBe('new');
      holding.open();
      await expect(old).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-old`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 'new' });
    });

    it('in transactional mode the write joins the transaction', async () => {
      const key = uniqueName('complete-with-tx');
      const result = await idempotent(db.target, { key, transactional: true }, async (tx, claim) => {
        await claim.completeWith(tx, 7, write(`${key}-a`, key));
        return 7;
      });
      expect(result).toBe(7);
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 7 });
    });
  },
);
