import type { EntityManager } from '@hireflow/db';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { uniqueName } from '@hireflow/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyInProgressError, IdempotentBatcher, idempotent } from '../src/index.ts';
import { effectsOf, gate, openTestOrm, storedRow, type TestOrm } from './orm.ts';

describe('IdempotentBatcher: the calls of one turn in one transaction', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await openTestOrm('idem-batcher');
  });
  afterAll(() => db.close());

  const write = (key: string, id: string) => async (tx: EntityManager) => {
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
    const batcher = new IdempotentBatcher(db.orm);
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
    const batcher = new IdempotentBatcher(db.orm);
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
    const batcher = new IdempotentBatcher(db.orm);
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
    const batcher = new IdempotentBatcher(db.orm);
    const held = uniqueName('held');
    const other = uniqueName('free');
    const holding = gate();
    const release = gate();
    const holder = idempotent(db.orm, { key: held, transactional: true }, async (tx) => {
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

  it("runs each call's work in its caller's trace context", async () => {
    const tracing = startTestTracing();
    try {
      const tracer = trace.getTracer('batcher-test');
      const batcher = new IdempotentBatcher(db.orm);
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
