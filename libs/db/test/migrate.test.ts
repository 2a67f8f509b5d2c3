import { createTestDatabase, type TestDatabase, waitFor } from '@hireflow/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database, defineSqlMigration, migrateDatabase } from '../src/index.ts';
import { MIGRATION_LOCK } from '../src/runner.ts';

// `migrateDatabase` at a service's start: a database with every migration applied is
// answered by one query, without the advisory lock (issue 31); one with a
// pending migration waits for the lock as concurrent starters do.

const first = defineSqlMigration('0001-migrate-test-a', ['CREATE TABLE a (id text PRIMARY KEY)']);
const second = defineSqlMigration('0002-migrate-test-b', ['CREATE TABLE b (id text PRIMARY KEY)']);

describe('migrateDatabase', () => {
  let db: TestDatabase;
  const orms: Database[] = [];
  let holder: pg.Client;

  const orm = async (migrations: (typeof first)[]) => {
    const made = createDatabase({ url: db.url, migrations, poolMax: 2 });
    orms.push(made);
    return made;
  };
  /** Whether a session of this database waits for the migration lock. */
  const waitingForLock = async () => {
    const { rows } = await holder.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_database d ON d.oid = l.database
        WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()`,
    );
    return rows[0]!.waiting > 0;
  };

  beforeAll(async () => {
    db = await createTestDatabase('migrate');
    holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    for (const made of orms) await made.close();
    await db?.drop();
  });

  it('applies pending migrations; once all are applied, answers without waiting for the lock', async () => {
    expect(await migrateDatabase(await orm([first]))).toEqual(['0001-migrate-test-a']);

    // Another starter holds the lock: an up-to-date database does not wait for it.
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const upToDate = migrateDatabase(await orm([first]));
      const outcome = await Promise.race([
        upToDate,
        waitFor(waitingForLock, { timeoutMs: 10_000 }).then(() => 'waited for the lock'),
      ]);
      expect(outcome).toEqual([]);

      // A pending migration waits for the lock, then is applied.
      const pending = migrateDatabase(await orm([first, second]));
      await waitFor(waitingForLock, { message: 'the starter with a pending migration waits for the lock' });
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      expect(await pending).toEqual(['0002-migrate-test-b']);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
    }
    const { rows } = await holder.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(['0001-migrate-test-a', '0002-migrate-test-b']);
  });
});
