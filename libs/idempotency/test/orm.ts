import { createDatabase, type Database, defineSqlMigration, migrateDatabase } from '@hireflow/db';
import { createTestDatabase } from '@hireflow/testing';
import { IdempotencyInProgressError, idempotencyMigrations } from '../src/index.ts';

/**
 * The backends the wrapper runs on: the pg implementation (@hireflow/db)
 * since the swap (issue 31, slice 3); until then MikroORM too, the same
 * checks on each.
 */
export type Backend = 'pg';
export const backends: { name: Backend }[] = [{ name: 'pg' }];

export interface TestOrm {
  /** The test's own reads and writes (the rows as stored, a test's setup), on a pool of its own. */
  orm: Database;
  /** What the test hands the wrapper: a Database on the same database. */
  target: Database;
  url: string;
  close(): Promise<void>;
}

/**
 * A database of the test file's own with the library's migrations applied,
 * plus `effect`, a table the tests' work writes to so that a test can count
 * how many times an effect really happened.
 */
export async function openTestOrm(label: string, poolMax = 10, _backend: Backend = 'pg'): Promise<TestOrm> {
  const db = await createTestDatabase(label);
  const migrations = [
    ...idempotencyMigrations,
    defineSqlMigration('9000-test-effect', ['CREATE TABLE effect (id text PRIMARY KEY, key text NOT NULL)']),
  ];
  const orm = createDatabase({ url: db.url, migrations, poolMax });
  await migrateDatabase(orm);
  const target = createDatabase({ url: db.url, migrations, poolMax });
  return {
    orm,
    target,
    url: db.url,
    close: async () => {
      await target.close();
      await orm.close();
      await db.drop();
    },
  };
}

export interface StoredRow {
  key: string;
  status: 'in_progress' | 'completed';
  fencing_token: string;
  result: unknown;
  fingerprint: string | null;
}

export async function storedRow(orm: Database, key: string): Promise<StoredRow | undefined> {
  const [row] = await orm.em
    .fork()
    .execute<StoredRow[]>(
      'SELECT key, status, fencing_token::text, result, fingerprint FROM processed_message WHERE key = ?',
      [key],
    );
  return row;
}

export async function effectsOf(orm: Database, key: string): Promise<string[]> {
  const rows = await orm.em
    .fork()
    .execute<{ id: string }[]>('SELECT id FROM effect WHERE key = ? ORDER BY id', [key]);
  return rows.map((row) => row.id);
}

/** A promise and its resolver, for work that must wait until the test lets it go on. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** The call's result, or false while another holder has the key: a condition for waitFor. */
export function unlessInProgress<T>(call: Promise<T>): Promise<T | false> {
  return call.catch((error: unknown) => {
    if (error instanceof IdempotencyInProgressError) return false;
    throw error;
  });
}

/** As if the holder had stalled past its lease: the next caller may take the key over. */
export async function expireLease(orm: Database, key: string): Promise<void> {
  await orm.em.fork().execute('UPDATE processed_message SET lease_expires_at = now() WHERE key = ?', [key]);
}
