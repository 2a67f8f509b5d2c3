import { createTestDatabase, type TestDatabase } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, executePrepared } from '../src/index.ts';
import type { Sql } from '../src/sql.ts';
import { type Connected, implementations } from './implementations.ts';

// `executePrepared` on the pg implementation's scopes (issue 31, slice 1b;
// until the swap, slice 3, the same checks ran on MikroORM's EntityManager).
describe.each(implementations)('$name: executePrepared', ({ name, connect }) => {
  let db: TestDatabase;
  let subject: Connected;

  beforeAll(async () => {
    db = await createTestDatabase(`prepared-${name === 'pg' ? 'pg' : 'mikro'}`);
    subject = await connect(db.url, 2);
    await subject.em.fork().execute('CREATE TABLE item (id text PRIMARY KEY, doc jsonb NOT NULL)');
  });
  afterAll(async () => {
    await subject?.close();
    await db?.drop();
  });

  const insert = (em: Sql, id: string) =>
    executePrepared<{ id: string }>(em, 'INSERT INTO item (id, doc) SELECT ?::text, ?::jsonb RETURNING id', [
      id,
      JSON.stringify({ id }),
    ]);
  const prepared = (em: Sql) =>
    em.execute<{ statement: string }[]>(
      "SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO item%'",
    );

  it("inside a transaction runs on the transaction's own connection, as a named prepared statement", async () => {
    await subject.em.fork().transactional(async (tx) => {
      expect(await insert(tx, 'a')).toEqual([{ id: 'a' }]);
      expect(await insert(tx, 'b')).toEqual([{ id: 'b' }]);
      // Prepared on this connection (the session's own list), and its writes are this transaction's.
      expect(await prepared(tx)).toHaveLength(1);
      expect(await executePrepared(tx, 'SELECT id FROM item WHERE id = ?::text', ['a'])).toEqual([
        { id: 'a' },
      ]);
      // Not seen outside the transaction before it commits.
      expect(await executePrepared(tx.fork(), 'SELECT id FROM item WHERE id = ?::text', ['a'])).toEqual([]);
    });
    expect(await subject.em.fork().execute('SELECT id FROM item ORDER BY id')).toEqual([
      { id: 'a' },
      { id: 'b' },
    ]);
  });

  it('in a nested transaction runs on the same connection, and rolls back to its savepoint', async () => {
    await subject.em.fork().transactional(async (tx) => {
      const [outer] = await tx.execute<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      const nested = tx.transactional(async (inner) => {
        expect(
          await executePrepared<{ pid: number }>(inner, 'SELECT pg_backend_pid() AS pid, ?::text AS tag', [
            'nested',
          ]),
        ).toEqual([{ pid: outer!.pid, tag: 'nested' }]);
        await insert(inner, 'n1');
        throw new Error('inner');
      });
      await expect(nested).rejects.toThrow('inner');
      await insert(tx, 'n2');
    });
    expect(await subject.em.fork().execute("SELECT id FROM item WHERE id LIKE 'n%' ORDER BY id")).toEqual([
      { id: 'n2' },
    ]);
  });

  it('rolls back with the transaction, and its error fails the transaction', async () => {
    const failing = subject.em.fork().transactional(async (tx) => {
      await insert(tx, 'c');
      await insert(tx, 'a'); // duplicate key
    });
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(await subject.em.fork().execute("SELECT id FROM item WHERE id = 'c'")).toEqual([]);
  });

  it('outside a transaction autocommits on the pool', async () => {
    expect(await insert(subject.em.fork(), 'd')).toEqual([{ id: 'd' }]);
    expect(await subject.em.fork().execute("SELECT id FROM item WHERE id = 'd'")).toEqual([{ id: 'd' }]);
    await expect(insert(subject.em.fork(), 'd')).rejects.toMatchObject({ code: '23505' });
  });
});

describe('executePrepared gives the rows MikroORM gave', () => {
  let db: TestDatabase;
  let ours: Connected;

  beforeAll(async () => {
    db = await createTestDatabase('prepared-parity');
    ours = createDatabase({ url: db.url, migrations: [], poolMax: 2 });
  });
  afterAll(async () => {
    await ours?.close();
    await db?.drop();
  });

  // Bind parameters of the types the callers pass (text, numbers, JSON text, a Date, null, an array),
  // and results of the types the services read (timestamps as strings, int8 and numeric as strings, jsonb parsed).
  const SELECT = `SELECT ?::text AS t, ?::int AS i, ?::float8 AS f, ?::jsonb AS j, ?::timestamptz AS at,
    ?::text AS absent, ?::text[] AS tags, 9007199254740993::bigint AS big, 1.50::numeric(4, 2) AS amount,
    '2026-12-02'::date AS day, interval '1 day 2 hours' AS span, ARRAY[timestamptz '2026-01-01 00:00:00+00'] AS ats,
    true AS flag, 'b5f4c1d2-8e9a-4b3c-9d2e-1f0a2b3c4d5e'::uuid AS uid, '\\x00ff'::bytea AS bytes`;
  const params = [
    "it's",
    42,
    0.25,
    JSON.stringify({ a: [1, 'x'], b: null }),
    new Date('2026-12-02T14:17:07.123Z'),
    null,
    ['a', 'b c', 'NULL'],
  ];

  // Until the swap (issue 31, slice 3) these rows were compared with MikroORM's for the same statement; the
  // values below are what both gave.
  it('rows, types and the count, the same on the pool and in a transaction', async () => {
    const onPool = await executePrepared(ours.em.fork(), SELECT, params);
    const inTransaction = (em: Sql) => em.transactional((tx) => executePrepared(tx, SELECT, params));
    expect(await inTransaction(ours.em.fork())).toStrictEqual(onPool);
    expect(onPool).toMatchObject([
      {
        t: "it's",
        i: 42,
        f: 0.25,
        j: { a: [1, 'x'], b: null },
        at: expect.any(String),
        absent: null,
        tags: ['a', 'b c', 'NULL'],
        big: '9007199254740993',
        amount: '1.50',
        day: '2026-12-02',
        span: '1 day 02:00:00',
        ats: [expect.any(String)],
        flag: true,
      },
    ]);
    // No rows: an empty list on both.
    const none = 'SELECT 1 AS one WHERE ?::int = 0';
    expect(await executePrepared(ours.em.fork(), none, [1])).toStrictEqual([]);
    expect(
      await inTransaction(ours.em.fork()).then(() => executePrepared(ours.em.fork(), none, [0])),
    ).toStrictEqual([{ one: 1 }]);
  });
});
