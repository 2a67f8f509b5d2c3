import { isPgScope, type Sql } from '@hireflow/db';
import { uniqueName, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IdempotencyConflictError,
  IdempotencyInProgressError,
  IdempotencyLeaseLostError,
  idempotent,
} from '../src/index.ts';
import {
  backends,
  expireLease,
  gate,
  openTestOrm,
  storedRow,
  type TestOrm,
  unlessInProgress,
} from './orm.ts';

describe.each(backends)('$name: idempotent', ({ name }) => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await openTestOrm('idem-wrapper', 10, name);
  });
  afterAll(() => db.close());

  it('runs the work once and returns the stored result to duplicates', async () => {
    const key = uniqueName('once');
    let runs = 0;
    const work = async (em: Sql) => {
      // The backend's own scope: the pg implementation's on its Database.
      expect(isPgScope(em)).toBe(name === 'pg');
      return { sent: ++runs };
    };
    expect(await idempotent(db.target, { key }, work)).toEqual({ sent: 1 });
    expect(await idempotent(db.target, { key }, work)).toEqual({ sent: 1 });
    expect(runs).toBe(1);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: { sent: 1 } });
  });

  it('50 concurrent calls while the holder runs: one runs, 49 get a retryable in-progress error', async () => {
    const key = uniqueName('fifty-gated');
    const holding = gate();
    let runs = 0;
    const work = async () => {
      runs++;
      await holding.opened;
      return 'done';
    };
    let settledCount = 0;
    const calls = Array.from({ length: 50 }, () => idempotent(db.target, { key }, work));
    for (const call of calls) call.then(countSettled, countSettled);
    function countSettled() {
      settledCount++;
    }
    // every call but the holder's settles while the holder is held
    await waitFor(() => settledCount === 49);
    holding.open();
    const outcomes = await Promise.allSettled(calls);
    expect(runs).toBe(1);
    expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)).toEqual(['done']);
    const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(errors).toHaveLength(49);
    for (const error of errors) {
      expect(error).toBeInstanceOf(IdempotencyInProgressError);
      expect(error).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', retryable: true, key });
      expect(error.retryAfterMs).toBeGreaterThan(0);
    }
    const later = await Promise.all(Array.from({ length: 50 }, () => idempotent(db.target, { key }, work)));
    expect(later.every((value) => value === 'done')).toBe(true);
    expect(runs).toBe(1);
  });

  it('50 concurrent calls racing a quick work: it runs exactly once, the others replay or report in progress', async () => {
    const key = uniqueName('fifty-race');
    let runs = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, () => idempotent(db.target, { key }, async () => ++runs)),
    );
    expect(runs).toBe(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') expect(outcome.value).toBe(1);
      else expect(outcome.reason).toBeInstanceOf(IdempotencyInProgressError);
    }
  });

  it('releases the claim when the work throws, so the next attempt runs it; after success it never runs again', async () => {
    const key = uniqueName('throws');
    let runs = 0;
    const failing = async () => {
      runs++;
      throw new Error('smtp down');
    };
    await expect(idempotent(db.target, { key }, failing)).rejects.toThrow('smtp down');
    expect(await storedRow(db.orm, key)).toBeUndefined();
    const succeeding = async () => ++runs;
    expect(await idempotent(db.target, { key }, succeeding)).toBe(2);
    expect(await idempotent(db.target, { key }, succeeding)).toBe(2);
    await expect(idempotent(db.target, { key }, failing)).resolves.toBe(2);
    expect(runs).toBe(2);
  });

  it('releases the claim when the result cannot be stored as JSON', async () => {
    const key = uniqueName('unserializable');
    await expect(idempotent(db.target, { key }, async () => ({ big: 1n }))).rejects.toThrow(TypeError);
    expect(await storedRow(db.orm, key)).toBeUndefined();
  });

  it('gives every caller the JSON form of the result, the first included', async () => {
    const key = uniqueName('json');
    const at = new Date('2026-11-29T10:00:00Z');
    const first = await idempotent(db.target, { key }, async () => ({ at, skip: undefined }));
    const replayed = await idempotent(db.target, { key }, async () => ({ at, skip: undefined }));
    expect(first).toEqual({ at: '2026-11-29T10:00:00.000Z' });
    expect(replayed).toEqual(first);
    expect(await idempotent(db.target, { key: uniqueName('void') }, async () => undefined)).toBeNull();
  });

  it('with a payload: the same payload (keys in any order) replays, another one is a conflict', async () => {
    const key = uniqueName('fingerprint');
    let runs = 0;
    const work = async () => ++runs;
    await idempotent(db.target, { key, payload: { jobId: 'j1', skills: ['ts', 'sql'] } }, work);
    const same = await idempotent(db.target, { key, payload: { skills: ['ts', 'sql'], jobId: 'j1' } }, work);
    expect(same).toBe(1);
    const conflict = idempotent(db.target, { key, payload: { jobId: 'j2', skills: ['ts', 'sql'] } }, work);
    await expect(conflict).rejects.toBeInstanceOf(IdempotencyConflictError);
    await expect(conflict).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', retryable: false });
    expect(runs).toBe(1);
  });

  it('reports a conflict, not "in progress", for another payload while the first still runs', async () => {
    const key = uniqueName('fingerprint-running');
    const holding = gate();
    const first = idempotent(db.target, { key, payload: { n: 1 } }, async () => holding.opened);
    await waitFor(async () => (await storedRow(db.orm, key))?.status === 'in_progress');
    await expect(idempotent(db.target, { key, payload: { n: 2 } }, async () => 0)).rejects.toBeInstanceOf(
      IdempotencyConflictError,
    );
    holding.open();
    await first;
  });

  it('without a payload (an intent key): a different event for the same intent replays', async () => {
    const key = uniqueName('welcome-email');
    let runs = 0;
    await idempotent(db.target, { key }, async () => ++runs);
    expect(await idempotent(db.target, { key }, async () => ++runs)).toBe(1);
    expect(runs).toBe(1);
  });

  it('runs the work again once the retention of a completed key has passed', async () => {
    const key = uniqueName('retention');
    let runs = 0;
    await idempotent(db.target, { key }, async () => ++runs);
    await db.orm.em
      .fork()
      .execute(`UPDATE processed_message SET expires_at = now() - interval '1 second' WHERE key = ?`, [key]);
    expect(await idempotent(db.target, { key }, async () => ++runs)).toBe(2);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 2 });
  });

  it('keeps the claim of a work that outlives its lease by renewing it (heartbeat)', async () => {
    const key = uniqueName('heartbeat');
    const leaseMs = 500;
    const holding = gate();
    const first = idempotent(db.target, { key, leaseMs }, async () => {
      await holding.opened;
      return 'long';
    });
    // wait until the claim is older than two leases yet still held
    await waitFor(async () => {
      const [row] = await db.orm.em.fork().execute<{ held: boolean }[]>(
        `SELECT now() > created_at + interval '1100 milliseconds' AND lease_expires_at > now() AS held
           FROM processed_message WHERE key = ?`,
        [key],
      );
      return row?.held === true;
    });
    await expect(idempotent(db.target, { key, leaseMs }, async () => 'stolen')).rejects.toBeInstanceOf(
      IdempotencyInProgressError,
    );
    holding.open();
    expect(await first).toBe('long');
  });

  it('fences a holder whose lease ran out: the new holder completes, the old one is refused and told', async () => {
    const key = uniqueName('fenced');
    const leaseMs = 200;
    const holding = gate();
    let oldSignal: AbortSignal | undefined;
    const old = idempotent(db.target, { key, leaseMs, heartbeat: false }, async (_em, claim) => {
      oldSignal = claim.signal;
      await holding.opened;
      return 'old';
    });
    await waitFor(() => oldSignal !== undefined);
    const taken = await waitFor(() =>
      unlessInProgress(idempotent(db.target, { key, leaseMs }, async () => 'new')),
    );
    expect(taken).toBe('new');
    holding.open();
    await expect(old).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
    await expect(old).rejects.toMatchObject({ code: 'IDEMPOTENCY_LEASE_LOST' });
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 'new' });
    expect(await idempotent(db.target, { key }, async () => 'again')).toBe('new');
  });

  it('aborts the claim signal when the heartbeat finds the claim taken over', async () => {
    const key = uniqueName('lost-signal');
    const leaseMs = 200;
    const holding = gate();
    let signal: AbortSignal | undefined;
    const old = idempotent(db.target, { key, leaseMs }, async (_em, claim) => {
      signal = claim.signal;
      await holding.opened;
      return 'old';
    });
    await waitFor(() => signal !== undefined);
    // the holder's own heartbeat may renew in between: expire and claim until the claim wins
    const taken = await waitFor(async () => {
      await expireLease(db.orm, key);
      return unlessInProgress(idempotent(db.target, { key, leaseMs }, async () => 'new'));
    });
    expect(taken).toBe('new');
    await waitFor(() => signal?.aborted, { timeoutMs: 5_000 });
    expect(signal?.reason).toBeInstanceOf(IdempotencyLeaseLostError);
    holding.open();
    await expect(old).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
  });

  it('tells the work whether it took the key over from an unfinished holder', async () => {
    const key = uniqueName('taken-over');
    const holding = gate();
    const seen: boolean[] = [];
    const old = idempotent(db.target, { key, heartbeat: false }, async (_em, claim) => {
      seen.push(claim.takenOver);
      await holding.opened;
      return 'old';
    });
    await waitFor(() => seen.length === 1);
    await expireLease(db.orm, key);
    // The holder never finished: whoever takes the key over is told so.
    expect(
      await idempotent(db.target, { key }, async (_em, claim) => {
        seen.push(claim.takenOver);
        return 'new';
      }),
    ).toBe('new');
    holding.open();
    await expect(old).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
    // A fresh key is no takeover.
    expect(seen).toEqual([false, true]);
  });

  it('extendLease pushes the lease, and throws once the claim was taken over', async () => {
    const key = uniqueName('extend');
    const run = idempotent(db.target, { key, leaseMs: 1_000, heartbeat: false }, async (_em, claim) => {
      await claim.extendLease(60_000);
      const [row] = await db.orm.em
        .fork()
        .execute<{ remaining: number }[]>(
          `SELECT extract(epoch FROM lease_expires_at - now())::float8 AS remaining FROM processed_message WHERE key = ?`,
          [key],
        );
      expect(row!.remaining).toBeGreaterThan(50);
      await expireLease(db.orm, key);
      expect(await idempotent(db.target, { key }, async () => 'new')).toBe('new');
      await expect(claim.extendLease()).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
      expect(claim.signal.aborted).toBe(true);
      return 'old';
    });
    await expect(run).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
  });

  it('rejects an empty key', async () => {
    await expect(idempotent(db.target, { key: '' }, async () => 1)).rejects.toThrow(TypeError);
  });
});
