import { createTestDatabase, type TestDatabase, waitFor } from '@hireflow/testing';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineSqlMigration, type SqlMigration } from '../src/migrations.ts';
import { MIGRATION_LOCK, migrateDatabase } from '../src/runner.ts';
import { createDatabase, type Database } from '../src/sql.ts';
import { createOrm, type MikroORM, migrate } from './mikro-orm.ts';

// The runner (src/runner.ts) and MikroORM's Migrator (through `migrate` as
// libs/db had it, test/mikro-orm.ts: what migrated every database before the
// swap, issue 31 slice 3) keep the same books: a database migrated by one is up to date
// for the other, both ways, and they serialise on the same lock.

const first = defineSqlMigration('0001-runner-test-a', [
  'CREATE TABLE a (id text PRIMARY KEY)',
  // A `?` operator in a migration is sent as written.
  `CREATE VIEW a_has_x AS SELECT '{"x": 1}'::jsonb ? 'x' AS has_x`,
]);
const second = defineSqlMigration('0002-runner-test-b', ['CREATE TABLE b (id text PRIMARY KEY)', '  ']);
const third = defineSqlMigration('0003-runner-test-c.ts', ['CREATE TABLE c (id text PRIMARY KEY)']);
const broken = defineSqlMigration('0004-runner-test-broken', ['CREATE TABLE a (id text PRIMARY KEY)']);

describe('the migration runner beside MikroORM', () => {
  const dropLater: TestDatabase[] = [];
  let opened: { close(): Promise<void> }[] = [];

  const fresh = async () => {
    const made = await createTestDatabase('runner');
    dropLater.push(made);
    return made;
  };
  const database = (url: string, migrations: SqlMigration[]): Database => {
    const db = createDatabase({ url, migrations, poolMax: 2 });
    opened.push(db);
    return db;
  };
  const orm = async (url: string, migrations: SqlMigration[]): Promise<MikroORM> => {
    const made = await createOrm({ url, migrations, poolMax: 2 });
    opened.push(made);
    return made;
  };
  const query = async <T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const applied = async (url: string) =>
    (await query<{ name: string }>(url, 'SELECT name FROM schema_migrations ORDER BY id')).map(
      (row) => row.name,
    );
  /** What the two must agree on: the table's columns, keys and sequence; the rows but their times. */
  const books = async (url: string) => ({
    columns: await query(
      url,
      `SELECT column_name, data_type, character_maximum_length, datetime_precision, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = 'schema_migrations' ORDER BY ordinal_position`,
    ),
    constraints: await query(
      url,
      `SELECT conname, contype, pg_get_constraintdef(oid) AS definition FROM pg_constraint
        WHERE conrelid = 'schema_migrations'::regclass ORDER BY conname`,
    ),
    indexes: await query(
      url,
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'schema_migrations'`,
    ),
    rows: await query(
      url,
      'SELECT id, name, executed_at IS NOT NULL AS stamped FROM schema_migrations ORDER BY id',
    ),
  });

  afterEach(async () => {
    for (const each of opened) await each.close();
    opened = [];
  });
  afterAll(async () => {
    for (const made of dropLater) await made.drop();
  });

  it('migrates a fresh database as the Migrator does; the Migrator then finds nothing to do', async () => {
    const ours = await fresh();
    const theirs = await fresh();
    expect(await migrateDatabase(database(ours.url, [first, second, third]))).toEqual([
      '0001-runner-test-a',
      '0002-runner-test-b',
      '0003-runner-test-c',
    ]);
    expect(await migrate(await orm(theirs.url, [first, second, third]))).toEqual([
      '0001-runner-test-a',
      '0002-runner-test-b',
      '0003-runner-test-c',
    ]);
    expect(await books(ours.url)).toEqual(await books(theirs.url));

    // The Migrator itself, past libs/db's fast path: it reads the runner's table.
    const reader = await orm(ours.url, [first, second, third]);
    expect(await reader.migrator.getPending()).toEqual([]);
    expect(await reader.migrator.up()).toEqual([]);
    expect(await migrate(reader)).toEqual([]);
  });

  it('finds nothing to do on a database the Migrator migrated, and applies only what it did not', async () => {
    const target = await fresh();
    expect(await migrate(await orm(target.url, [first, second]))).toEqual([
      '0001-runner-test-a',
      '0002-runner-test-b',
    ]);
    expect(await migrateDatabase(database(target.url, [first, second]))).toEqual([]);
    expect(await migrateDatabase(database(target.url, [first, second, third]))).toEqual([
      '0003-runner-test-c',
    ]);
    expect(await orm(target.url, [first, second, third]).then((made) => made.migrator.getPending())).toEqual(
      [],
    );
    expect(await applied(target.url)).toEqual([
      '0001-runner-test-a',
      '0002-runner-test-b',
      '0003-runner-test-c',
    ]);
  });

  it('creates the table even with no migrations, as the Migrator does', async () => {
    const ours = await fresh();
    const theirs = await fresh();
    expect(await migrateDatabase(database(ours.url, []))).toEqual([]);
    expect(await migrate(await orm(theirs.url, []))).toEqual([]);
    expect(await books(ours.url)).toEqual(await books(theirs.url));
  });

  it('rolls back the whole run when a migration fails, leaving the table empty, as the Migrator does', async () => {
    for (const run of [
      (url: string) => migrateDatabase(database(url, [first, second, broken])),
      async (url: string) => migrate(await orm(url, [first, second, broken])),
    ]) {
      const target = await fresh();
      await expect(run(target.url)).rejects.toMatchObject({ code: '42P07' });
      expect(
        await query(target.url, "SELECT to_regclass('schema_migrations') AS t, to_regclass('a') AS a"),
      ).toEqual([{ t: 'schema_migrations', a: null }]);
      expect(await applied(target.url)).toEqual([]);
    }
  });

  it('applies each migration once when runners start at once, its own or the Migrator', async () => {
    const list = [first, second, third];
    const names = ['0001-runner-test-a', '0002-runner-test-b', '0003-runner-test-c'];
    const racers = async (url: string, starters: ((url: string) => Promise<string[]>)[]) => {
      const results = await Promise.all(starters.map((start) => start(url)));
      expect(results.flat().sort()).toEqual(names);
      expect(await applied(url)).toEqual(names);
    };
    const ours = (url: string) => migrateDatabase(database(url, list));
    const theirs = async (url: string) => migrate(await orm(url, list));
    await racers((await fresh()).url, [ours, ours, ours]);
    await racers((await fresh()).url, [ours, theirs, ours, theirs]);
  });

  it('waits for the lock libs/db takes when a migration is pending, not when none is', async () => {
    const target = await fresh();
    const holder = new pg.Client({ connectionString: target.url });
    await holder.connect();
    const waitingForLock = async () => {
      const { rows } = await holder.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_database d ON d.oid = l.database
          WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()`,
      );
      return rows[0]!.waiting > 0;
    };
    try {
      expect(await migrateDatabase(database(target.url, [first]))).toEqual(['0001-runner-test-a']);
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const upToDate = migrateDatabase(database(target.url, [first]));
      const outcome = await Promise.race([
        upToDate,
        waitFor(waitingForLock, { timeoutMs: 10_000 }).then(() => 'waited for the lock'),
      ]);
      expect(outcome).toEqual([]);
      const pending = migrateDatabase(database(target.url, [first, second]));
      await waitFor(waitingForLock, { message: 'the runner with a pending migration waits for the lock' });
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      expect(await pending).toEqual(['0002-runner-test-b']);
    } finally {
      await holder.end();
    }
  });
});
