import { isPgScope, type Sql } from '@hireflow/db';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { uniqueName, waitFor } from '@hireflow/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyInProgressError, IdempotentBatcher, idempotent } from '../src/index.ts';
import {
  CLAIM_NEW_KEYS_SQL,
  COMPLETE_CLAIMS_OR_FAIL_SQL,
  claimNewKeysParams,
  completeClaimsParams,
} from '../src/store.ts';
import { backends, effectsOf, gate, openTestOrm, storedRow, type TestOrm } from './orm.ts';

describe.each(backends)('$name: IdempotentBatcher: the calls of one turn in one transaction', ({ name }) => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await openTestOrm('idem-batcher', 10, name);
  });
  afterAll(() => db.close());

  const write = (key: string, id: string) => async (tx: Sql) => {
    expect(isPgScope(tx)).toBe(name === 'pg');
    await tx.execute('INSERT INTO effect (id, key) VALUES (?, ?)', [id, key]);
    return { id };
  };
  const commits = async () => {
    const [row] = await db.orm.em
      .fork()
      .execute<{ n: string }[]>(
        'SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()',
      );
    return Number(row!.n);
  };

  it('runs each key once, completes them all, and a duplicate (in the batch or later) gets the stored result', async () => {
    const batcher = new IdempotentBatcher(db.target);
    // Nine keys and a duplicate of the first: one batch of ten.
    const keys = Array.from({ length: 9 }, (_, i) => uniqueName(`batch-${i}`));
    const results = await Promise.all([
      ...keys.map((key) => batcher.run(key, write(key, `${key}-a`))),
      batcher.run(keys[0]!, write(keys[0]!, `${keys[0]}-dup`)),
    ]);
    expect(results.slice(0, 9)).toEqual(keys.map((key) => ({ id: `${key}-a` })));
    expect(results[9]).toEqual({ id: `${keys[0]}-a` });
    for (const key of keys) {
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: { id: `${key}-a` } });
    }
    expect(await batcher.run(keys[3]!, write(keys[3]!, 'again'))).toEqual({ id: `${keys[3]}-a` });
  });

  it('commits a batch once', async () => {
    const batcher = new IdempotentBatcher(db.target);
    const keys = Array.from({ length: 10 }, (_, i) => uniqueName(`one-commit-${i}`));
    await Promise.all(keys.map((key) => batcher.run(key, write(key, `${key}-a`))));
    const before = await commits();
    const more = Array.from({ length: 10 }, (_, i) => uniqueName(`one-commit-b-${i}`));
    await Promise.all(more.map((key) => batcher.run(key, write(key, `${key}-a`))));
    // The batch's commit and the reading statement's own (pg_stat counts with a lag of
    // at most the statement that reads it); ten transactions would be ten.
    expect((await commits()) - before).toBeLessThanOrEqual(3);
  });

  it('a failing work fails alone: the batch is rolled back and the others commit on their own', async () => {
    const batcher = new IdempotentBatcher(db.target);
    const keys = Array.from({ length: 5 }, (_, i) => uniqueName(`split-${i}`));
    const failing = keys[2]!;
    const outcomes = await Promise.allSettled(
      keys.map((key) =>
        batcher.run(key, async (tx) => {
          await write(key, `${key}-a`)(tx);
          if (key === failing) throw new Error('this one fails');
          return key;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('this one fails');
    expect(await storedRow(db.orm, failing)).toBeUndefined();
    expect(await effectsOf(db.orm, failing)).toEqual([]);
    for (const key of keys.filter((k) => k !== failing))
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-a`]);
  });

  it('a key another holder runs is told "in progress"; the rest of the batch goes on', async () => {
    const batcher = new IdempotentBatcher(db.target);
    const held = uniqueName('held');
    const other = uniqueName('free');
    const holding = gate();
    const release = gate();
    const holder = idempotent(db.target, { key: held, transactional: true }, async (tx) => {
      await write(held, `${held}-holder`)(tx);
      holding.open();
      await release.opened;
      return 1;
    });
    await holding.opened;
    const [heldOutcome, freeOutcome] = await Promise.allSettled([
      batcher.run(held, write(held, `${held}-b`)),
      batcher.run(other, write(other, `${other}-a`)),
    ]);
    expect((heldOutcome as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyInProgressError);
    expect(freeOutcome).toEqual({ status: 'fulfilled', value: { id: `${other}-a` } });
    release.open();
    await holder;
    expect(await effectsOf(db.orm, held)).toEqual([`${held}-holder`]);
  });

  it('a batch whose connection the server ends mid-batch: nothing of it reads completed, each call reruns alone once', async () => {
    const batcher = new IdempotentBatcher(db.target);
    const keys = [uniqueName('ended-a'), uniqueName('ended-b')];
    const inWork = gate();
    const ended = gate();
    let backend: number | undefined;
    const runs = new Map<string, number>();
    const calls = keys.map((key) =>
      batcher.run(key, async (tx) => {
        const run = (runs.get(key) ?? 0) + 1;
        runs.set(key, run);
        await write(key, `${key}-${run}`)(tx);
        if (key === keys[0] && run === 1) {
          const [row] = await tx.execute<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
          backend = row!.pid;
          inWork.open();
          await ended.opened;
        }
        return { run };
      }),
    );
    await inWork.opened;
    // Claimed completed in the batch's transaction, with an effect written: no other reader sees either.
    for (const key of keys) {
      expect(await storedRow(db.orm, key)).toBeUndefined();
      expect(await effectsOf(db.orm, key)).toEqual([]);
    }
    // As when Postgres restarts or an operator ends the session.
    await db.orm.em.fork().execute('SELECT pg_terminate_backend(?)', [backend]);
    // The client hears of it (FATAL) before the backend has released its locks and gone: until then
    // its keys' advisory locks are held, and a call rerun alone would be told "in progress" (retryable).
    await waitFor(
      async () =>
        (await db.orm.em.fork().execute('SELECT 1 FROM pg_stat_activity WHERE pid = ?', [backend])).length ===
        0,
    );
    ended.open();
    // The second work ran in the batch too (on the ended connection, so it failed): both ran twice.
    expect(await Promise.all(calls)).toEqual([{ run: 2 }, { run: 2 }]);
    for (const key of keys) {
      expect(await effectsOf(db.orm, key)).toEqual([`${key}-2`]);
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: { run: 2 } });
    }
  });

  it("runs each call's work in its caller's trace context", async () => {
    const tracing = startTestTracing();
    try {
      const tracer = trace.getTracer('batcher-test');
      const batcher = new IdempotentBatcher(db.target);
      const seen: { caller: string; inWork: string | undefined }[] = [];
      await Promise.all(
        ['a', 'b', 'c'].map((name) =>
          tracer.startActiveSpan(`caller ${name}`, async (span) => {
            const key = uniqueName(`trace-${name}`);
            await batcher.run(key, async (tx) => {
              seen.push({
                caller: span.spanContext().traceId,
                inWork: trace.getActiveSpan()?.spanContext().traceId,
              });
              return write(key, `${key}-a`)(tx);
            });
            span.end();
          }),
        ),
      );
      expect(seen).toHaveLength(3);
      for (const { caller, inWork } of seen) expect(inWork).toBe(caller);
      expect(new Set(seen.map((s) => s.caller)).size).toBe(3);
    } finally {
      await tracing.stop();
    }
  });
});

describe("IdempotentBatcher's bookkeeping: no index entry for a completion", () => {
  let db: TestOrm;
  beforeAll(async () => {
    // A table of its own: the pages have room, so what decides HOT is only which columns change.
    db = await openTestOrm('idem-batcher-hot');
  });
  afterAll(() => db.close());

  it('completes the claims of a batch by HOT updates (no indexed column changes)', async () => {
    const keys = Array.from({ length: 10 }, (_, i) => uniqueName(`hot-${i}`));
    // The batcher's two statements, in a transaction of the test's whose own counts it can read.
    const counts = await db.orm.em.fork().transactional(async (tx) => {
      const rows = await tx.execute<{ key: string; token: string }[]>(
        CLAIM_NEW_KEYS_SQL,
        claimNewKeysParams(keys, { leaseMs: 30_000, ttlMs: 86_400_000 }),
      );
      const tokens = new Map(rows.map((row) => [row.key, row.token]));
      await tx.execute(
        COMPLETE_CLAIMS_OR_FAIL_SQL,
        completeClaimsParams(
          keys.map((key, i) => ({ key, token: tokens.get(key)!, resultJson: JSON.stringify({ i }) })),
        ),
      );
      // This transaction's own counts, before they are reported (pg_stat_xact_user_tables).
      const [row] = await tx.execute<{ updated: string; hot: string }[]>(
        `SELECT pg_stat_get_xact_tuples_updated('processed_message'::regclass)::text AS updated,
                pg_stat_get_xact_tuples_hot_updated('processed_message'::regclass)::text AS hot`,
      );
      return { claimed: tokens.size, updated: Number(row!.updated), hot: Number(row!.hot) };
    });
    expect(counts).toEqual({ claimed: 10, updated: 10, hot: 10 });
    for (const [i, key] of keys.entries()) {
      expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: { i } });
    }
  });

  it("refuses the completion (and so the batch's COMMIT) when a claim is not this transaction's", async () => {
    const keys = [uniqueName('refused-a'), uniqueName('refused-b')];
    const attempt = db.orm.em.fork().transactional(async (tx) => {
      const rows = await tx.execute<{ key: string; token: string }[]>(
        CLAIM_NEW_KEYS_SQL,
        claimNewKeysParams(keys, { leaseMs: 30_000, ttlMs: 86_400_000 }),
      );
      // The second key's token is wrong: one of two completions stored.
      const claims = rows.map((row, i) => ({
        key: row.key,
        token: i === 1 ? '0' : row.token,
        resultJson: '{"ok":true}',
      }));
      await tx.execute(COMPLETE_CLAIMS_OR_FAIL_SQL, completeClaimsParams(claims));
    });
    await expect(attempt).rejects.toMatchObject({ code: '22012' });
    for (const key of keys) expect(await storedRow(db.orm, key)).toBeUndefined();
  });
});
