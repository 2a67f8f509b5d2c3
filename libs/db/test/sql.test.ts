import { createTestDatabase, type TestDatabase } from '@hireflow/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executePrepared } from '../src/prepared.ts';
import { createDatabase, type Database, poolOf, type Sql, transactionScopeOn } from '../src/sql.ts';
import { type Connected, implementations } from './implementations.ts';
import { createOrm, type MikroORM } from './mikro-orm.ts';

// The pg implementation (src/sql.ts) held to MikroORM's `em` where the code
// relies on it (issue 31, slice 1): the rows `execute` gives, `'run'`,
// errors, transactions, savepoints, forks.

const when = new Date('2026-12-02T14:17:07.123Z');

/** Every column type the services use, and the date/time arrays MikroORM parses apart. */
const EVERY_TYPE = `CREATE TABLE every_type (
  id int PRIMARY KEY,
  at timestamptz, day date, local_at timestamp, span interval,
  doc jsonb, big bigint, uid uuid, tags text[], bytes bytea, amount numeric(12, 3), flag boolean,
  ats timestamptz[], days date[], local_ats timestamp[], spans interval[],
  note text, n int, ratio float8, raw json, bigs bigint[]
)`;
const INSERT = `INSERT INTO every_type VALUES (?, ?, ?, ?, ?::interval, ?, ?, ?, ARRAY[?]::text[], ?, ?, ?,
  ARRAY[?]::timestamptz[], ARRAY[?]::date[], ARRAY[?]::timestamp[], ARRAY[?]::interval[], ?, ?, ?, ?, ARRAY[?]::bigint[])`;
const values = (id: number) => [
  id,
  when,
  '2026-12-02',
  '2026-12-02 14:17:07.5',
  '1 day 02:03:04.5',
  { a: 1, b: ['x', "it's"], c: null, d: 'back\\slash', at: when },
  9007199254740993n,
  'b5f4c1d2-8e9a-4b3c-9d2e-1f0a2b3c4d5e',
  ['a', 'b c', "it's", 'd\\e', 'NULL', '{x}'],
  Buffer.from([0, 1, 0xfe, 0xff]),
  '12345.678',
  true,
  [when, new Date('1999-12-31T23:59:59.999Z')],
  ['2026-01-01', '1970-01-01'],
  ['2026-01-01 00:00:00'],
  ['1 hour', '-2 days'],
  'żółw 🐢',
  42,
  0.1,
  { raw: true },
  [1n, -2n],
];

describe('the pg implementation beside MikroORM, on one database', () => {
  let testDb: TestDatabase;
  let orm: MikroORM;
  let db: Database;
  /** A fresh scope of each: MikroORM's first. */
  const both = (): [Sql, Sql] => [orm.em.fork() as unknown as Sql, db.em.fork()];

  beforeAll(async () => {
    testDb = await createTestDatabase('sql-parity');
    orm = await createOrm({ url: testDb.url, migrations: [], poolMax: 2 });
    db = createDatabase({ url: testDb.url, migrations: [], poolMax: 2 });
    await db.em.execute(EVERY_TYPE);
  });
  afterAll(async () => {
    await orm?.close();
    await db?.close();
    await testDb?.drop();
  });

  it('sets its pool up as MikroORM does (settings from the URL, sizes, type parsers)', async () => {
    const theirs = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
    const settings = (pool: pg.Pool) => {
      const options = pool.options as unknown as Record<string, unknown>;
      // All but the type parsers (compared below), and the password, which pg-pool makes non-enumerable.
      const plain = Object.entries(options).filter(([key]) => key !== 'types');
      return { keys: Object.keys(options).sort(), ...Object.fromEntries(plain), password: options.password };
    };
    expect(settings(db.pool)).toEqual(settings(theirs));
    const samples: [number, string][] = [
      [1082, '2026-12-02'],
      [1114, '2026-12-02 14:17:07.5'],
      [1184, '2026-12-02 14:17:07.123+00'],
      [1186, '1 day 02:03:04.5'],
      [1182, '{2026-12-02,NULL}'],
      [1115, '{"2026-12-02 14:17:07.5"}'],
      [1185, '{"2026-12-02 14:17:07.123+00",NULL}'],
      [1187, '{"1 day","-02:00:00"}'],
    ];
    const parse = (pool: pg.Pool, oid: number, text: string) =>
      (pool.options as unknown as { types: pg.CustomTypesConfig }).types.getTypeParser(oid, 'text')(text);
    for (const [oid, text] of samples) expect(parse(db.pool, oid, text)).toEqual(parse(theirs, oid, text));
  });

  it('writes values and reads rows as MikroORM does, for every column type the services use', async () => {
    const [mikro, ours] = both();
    await mikro.execute(INSERT, values(1));
    await ours.execute(INSERT, values(11));
    await mikro.execute('INSERT INTO every_type (id) VALUES (?)', [2]);
    await ours.execute('INSERT INTO every_type (id) VALUES (?)', [12]);
    await db.em.execute(`INSERT INTO every_type (id, at, day, local_at, span, tags, ats, spans, big, amount)
      VALUES (3, 'infinity', '-infinity', '2000-01-01 00:00:00', '-1 year -2 mons +3 days -04:05:06', '{}',
              '{NULL,"2026-01-01 00:00:00+00"}', '{}', -9223372036854775808, 'NaN')`);

    const select = 'SELECT * FROM every_type ORDER BY id';
    const rows = await ours.execute<Record<string, unknown>[]>(select);
    expect(rows).toStrictEqual(await mikro.execute(select));
    // What each wrote with the same values is the same.
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect({ ...byId.get(11), id: 1 }).toStrictEqual(byId.get(1));
    expect({ ...byId.get(12), id: 2 }).toStrictEqual(byId.get(2));
    // What the stores rely on: timestamps and intervals as strings; int8 and numeric as strings; jsonb parsed.
    expect(byId.get(1)).toMatchObject({
      at: expect.any(String),
      day: '2026-12-02',
      local_at: '2026-12-02 14:17:07.5',
      span: '1 day 02:03:04.5',
      doc: { a: 1, b: ['x', "it's"], c: null, d: 'back\\slash', at: when.toISOString() },
      big: '9007199254740993',
      uid: 'b5f4c1d2-8e9a-4b3c-9d2e-1f0a2b3c4d5e',
      tags: ['a', 'b c', "it's", 'd\\e', 'NULL', '{x}'],
      bytes: Buffer.from([0, 1, 0xfe, 0xff]),
      amount: '12345.678',
      flag: true,
      ats: [expect.any(String), expect.any(String)],
      days: ['2026-01-01', '1970-01-01'],
      local_ats: ['2026-01-01 00:00:00'],
      spans: ['01:00:00', '-2 days'],
      bigs: ['1', '-2'],
    });
    expect(byId.get(3)).toMatchObject({ at: 'infinity', day: '-infinity', ats: [null, expect.any(String)] });
  });

  it("gives 'run' results, and multi-statement results, as MikroORM does", async () => {
    const run = async (em: Sql, table: string) => {
      const statements: [string, unknown[], 'all' | 'run'][] = [
        ['CREATE TABLE ?? (id int PRIMARY KEY, v text)', [table], 'run'],
        ['INSERT INTO ?? VALUES (?, ?), (?, ?)', [table, 1, 'a', 2, 'b'], 'run'],
        ['INSERT INTO ?? VALUES (?, ?) RETURNING id', [table, 3, 'c'], 'run'],
        ['UPDATE ?? SET v = ? WHERE id IN (?)', [table, 'z', [1, 2]], 'run'],
        ['UPDATE ?? SET v = ? WHERE id = ? RETURNING id, v', [table, 'y', 3], 'all'],
        ['DELETE FROM ?? WHERE id = ?', [table, 99], 'run'],
        ['SELECT id, v FROM ?? ORDER BY id', [table], 'run'],
        ['SELECT id, v FROM ?? ORDER BY id', [table], 'all'],
        ["INSERT INTO ?? VALUES (4, 'd'); UPDATE ?? SET v = 'e' WHERE id = 4", [table, table], 'run'],
        ['SELECT 1 AS a; SELECT 2 AS b', [], 'all'],
        ['SELECT 1 AS a; SELECT 2 AS b', [], 'run'],
        ['DELETE FROM ?? WHERE id > ?', [table, 0], 'run'],
      ];
      const results: unknown[] = [];
      for (const [sql, params, method] of statements) results.push(await em.execute(sql, params, method));
      return results;
    };
    const [mikro, ours] = both();
    const results = await run(ours, 'run_pg');
    expect(results).toStrictEqual(await run(mikro, 'run_mikro'));
    expect(results[2]).toStrictEqual({
      affectedRows: 1,
      insertId: undefined,
      row: { id: 3 },
      rows: [{ id: 3 }],
    });
    expect(results[3]).toMatchObject({ affectedRows: 2 });
    expect(results.at(-1)).toMatchObject({ affectedRows: 4 });
  });

  it('fails with the error code of Postgres, as MikroORM does (the code is what callers check)', async () => {
    for (const em of both()) {
      await expect(em.execute('INSERT INTO every_type (id) VALUES (?)', [1])).rejects.toMatchObject({
        code: '23505',
      });
      await expect(em.execute('SELEC 1')).rejects.toMatchObject({ code: '42601' });
      await expect(em.execute('SELECT * FROM missing_table')).rejects.toMatchObject({ code: '42P01' });
    }
  });
});

describe.each(implementations)('$name: transactions and forks', ({ connect }) => {
  let testDb: TestDatabase;
  let subject: Connected;
  const insert = (em: Sql, id: string) => em.execute('INSERT INTO item (id) VALUES (?)', [id]);
  const ids = async (prefix: string) =>
    (
      await subject.em
        .fork()
        .execute<{ id: string }[]>('SELECT id FROM item WHERE id LIKE ? ORDER BY id', [`${prefix}%`])
    ).map((row) => row.id);

  beforeAll(async () => {
    testDb = await createTestDatabase('sql-tx');
    subject = await connect(testDb.url, 3);
    await subject.em.fork().execute('CREATE TABLE item (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await subject?.close();
    await testDb?.drop();
  });

  it('commits the work and returns its value; READ COMMITTED; unseen outside until the commit', async () => {
    const em = subject.em.fork();
    expect(em.isInTransaction()).toBe(false);
    const result = await em.transactional(async (tx) => {
      expect(tx.isInTransaction()).toBe(true);
      await insert(tx, 'a1');
      expect(await tx.execute('SELECT id FROM item WHERE id = ?', ['a1'])).toEqual([{ id: 'a1' }]);
      expect(await ids('a')).toEqual([]);
      expect(await tx.execute('SHOW transaction_isolation')).toEqual([
        { transaction_isolation: 'read committed' },
      ]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await ids('a')).toEqual(['a1']);
    expect(em.isInTransaction()).toBe(false);
  });

  it('rolls back when the work throws, and rethrows its error', async () => {
    const failure = new Error('the work failed');
    const failing = subject.em.fork().transactional(async (tx) => {
      await insert(tx, 'b1');
      throw failure;
    });
    await expect(failing).rejects.toBe(failure);
    const failingStatement = subject.em.fork().transactional(async (tx) => {
      await insert(tx, 'b2');
      await insert(tx, 'b2');
    });
    await expect(failingStatement).rejects.toMatchObject({ code: '23505' });
    expect(await ids('b')).toEqual([]);
  });

  it('makes a nested transactional a savepoint: its failure undoes its own work only', async () => {
    await subject.em.fork().transactional(async (tx) => {
      await insert(tx, 'c1');
      const inner = tx.transactional(async (nested) => {
        expect(nested.isInTransaction()).toBe(true);
        await insert(nested, 'c2');
        throw new Error('inner');
      });
      await expect(inner).rejects.toThrow('inner');
      await tx.transactional(async (nested) => {
        await insert(nested, 'c3');
        await nested.transactional((deeper) => insert(deeper, 'c4'));
      });
      // A failed statement in a savepoint leaves the transaction usable.
      await expect(tx.transactional((nested) => insert(nested, 'c1'))).rejects.toMatchObject({
        code: '23505',
      });
      await insert(tx, 'c5');
    });
    expect(await ids('c')).toEqual(['c1', 'c3', 'c4', 'c5']);
  });

  it('forks outside the transaction: a fork neither sees its work nor rolls back with it', async () => {
    const rolledBack = subject.em.fork().transactional(async (tx) => {
      await insert(tx, 'd1');
      const fork = tx.fork();
      expect(fork.isInTransaction()).toBe(false);
      expect(await fork.execute('SELECT id FROM item WHERE id = ?', ['d1'])).toEqual([]);
      await insert(fork, 'd2');
      // A fork's transaction is its own, not a savepoint of the caller's.
      await tx.fork().transactional(async (own) => {
        expect(await own.execute('SELECT id FROM item WHERE id = ?', ['d1'])).toEqual([]);
        await insert(own, 'd3');
      });
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await ids('d')).toEqual(['d2', 'd3']);
  });

  it('refuses statements on the scope of a transaction that has ended', async () => {
    let leaked: Sql | undefined;
    await subject.em.fork().transactional(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.execute('SELECT 1')).rejects.toThrow();
  });
});

// What idempotency's owned transaction needs (issue 31, slice 1b): a scope on
// a connection its caller checked out and holds in a transaction of its own,
// BEGIN and COMMIT sent by the caller, with other statements in the same query.
describe('pg: a scope on a connection whose transaction the caller owns', () => {
  let testDb: TestDatabase;
  let db: Database;
  const ids = async (prefix: string) =>
    (
      await db.em.execute<{ id: string }[]>('SELECT id FROM owned_item WHERE id LIKE ? ORDER BY id', [
        `${prefix}%`,
      ])
    ).map((row) => row.id);

  beforeAll(async () => {
    testDb = await createTestDatabase('sql-owned');
    db = createDatabase({ url: testDb.url, migrations: [], poolMax: 2 });
    await db.em.execute('CREATE TABLE owned_item (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  /** Checks a connection out, BEGIN, the scope's work, then `finish` (the caller's own COMMIT or ROLLBACK). */
  async function owned<T>(
    work: (scope: Sql, client: pg.PoolClient) => Promise<T>,
    finish: string,
  ): Promise<T> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const { scope, end } = transactionScopeOn(client, db.pool);
      let result: T;
      try {
        result = await work(scope, client);
      } finally {
        end();
      }
      await client.query(finish);
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  it('gives every scope the pool it runs on (poolOf): the root, a fork, a transaction, an owned one', async () => {
    expect(poolOf(db.em)).toBe(db.pool);
    expect(poolOf(db.em.fork())).toBe(db.pool);
    await db.em.fork().transactional(async (tx) => {
      expect(poolOf(tx)).toBe(db.pool);
    });
    await owned(async (scope) => {
      expect(poolOf(scope)).toBe(db.pool);
    }, 'ROLLBACK');
    expect(() => poolOf({} as Sql)).toThrow(/not a scope/);
  });

  it("runs the work on the caller's connection and transaction; the caller's COMMIT makes it durable", async () => {
    await owned(async (scope, client) => {
      expect(scope.isInTransaction()).toBe(true);
      await scope.execute('INSERT INTO owned_item (id) VALUES (?)', ['a1']);
      await executePrepared(scope, 'INSERT INTO owned_item (id) VALUES (?::text)', ['a2']);
      // Unseen outside until the caller commits; a fork is outside.
      expect(await ids('a')).toEqual([]);
      expect(await scope.fork().execute('SELECT id FROM owned_item WHERE id = ?', ['a1'])).toEqual([]);
      expect(scope.fork().isInTransaction()).toBe(false);
      // The caller's connection, in the caller's transaction (which the inserts gave an id).
      const query = 'SELECT pg_backend_pid() AS pid, txid_current_if_assigned()::text AS xid';
      const [row] = await scope.execute<{ pid: number; xid: string | null }[]>(query);
      expect(row).toEqual((await client.query(query)).rows[0]);
      expect(row!.xid).not.toBeNull();
    }, "INSERT INTO owned_item (id) VALUES ('a3'); COMMIT");
    expect(await ids('a')).toEqual(['a1', 'a2', 'a3']);
  });

  it("rolls back with the caller's ROLLBACK; a nested transactional is a savepoint in it", async () => {
    await owned(async (scope) => {
      await scope.execute('INSERT INTO owned_item (id) VALUES (?)', ['b1']);
      await expect(
        scope.transactional(async (nested) => {
          expect(nested.isInTransaction()).toBe(true);
          await nested.execute('INSERT INTO owned_item (id) VALUES (?)', ['b2']);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await scope.transactional((nested) => nested.execute('INSERT INTO owned_item (id) VALUES (?)', ['b3']));
      expect(await scope.execute('SELECT id FROM owned_item WHERE id LIKE ? ORDER BY id', ['b%'])).toEqual([
        { id: 'b1' },
        { id: 'b3' },
      ]);
    }, 'ROLLBACK');
    expect(await ids('b')).toEqual([]);
    await owned(async (scope) => {
      await scope.execute('INSERT INTO owned_item (id) VALUES (?)', ['b4']);
      await scope.transactional((nested) => nested.execute('INSERT INTO owned_item (id) VALUES (?)', ['b5']));
    }, 'COMMIT');
    expect(await ids('b')).toEqual(['b4', 'b5']);
  });

  it('refuses statements once ended, as a transaction scope after its callback', async () => {
    const leaked = await owned(async (scope) => scope, 'COMMIT');
    await expect(leaked.execute('SELECT 1')).rejects.toThrow(/ended/);
    await expect(executePrepared(leaked, 'SELECT ?::int AS n', [1])).rejects.toThrow(/ended/);
    await expect(leaked.transactional(async () => 1)).rejects.toThrow(/ended/);
  });
});
