import {
  createDatabase,
  createOrm,
  type Database,
  defineSqlMigration,
  type MikroORM,
  migrate,
} from '@hireflow/db';
import { createTestDatabase } from '@hireflow/testing';
import { IdempotencyInProgressError, idempotencyMigrations } from '../src/index.ts';

/**
 * The two backends the wrapper runs on until the services move to the pg
 * implementation (issue 31): the tests run the same checks on each, as
 * libs/db's do (test/implementations.ts).
 */
export type Backend = 'MikroORM' | 'pg';
export const backends: { name: Backend }[] = [{ name: 'MikroORM' }, { name: 'pg' }];

export interface TestOrm {
  /** The test's own reads and writes (the rows as stored, a test's setup): MikroORM on either backend. */
  orm: MikroORM;
  /**
   * What the test hands the wrapper: the ORM, or the pg implementation's
   * Database on the same database. Typed as the latter either way: the
   * wrapper tells them apart at run time, and the work's scope has the
   * methods the tests use on both (only the types differ, as in libs/db's
   * test/implementations.ts).
   */
  target: Database;
  url: string;
  close(): Promise<void>;
}

/**
 * A database of the test file's own with the library's migrations applied,
 * plus `effect`, a table the tests' work writes to so that a test can count
 * how many times an effect really happened.
 */
export async function openTestOrm(
  label: string,
  poolMax = 10,
  backend: Backend = 'MikroORM',
): Promise<TestOrm> {
  const db = await createTestDatabase(label);
  const migrations = [
    ...idempotencyMigrations,
    defineSqlMigration('9000-test-effect', ['CREATE TABLE effect (id text PRIMARY KEY, key text NOT NULL)']),
  ];
  const orm = await createOrm({ url: db.url, migrations, poolMax });
  await migrate(orm);
  const pg = backend === 'pg' ? createDatabase({ url: db.url, migrations, poolMax }) : undefined;
  return {
    orm,
    target: pg ?? (orm as unknown as Database),
    url: db.url,
    close: async () => {
      await pg?.close();
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

export async function storedRow(orm: MikroORM, key: string): Promise<StoredRow | undefined> {
  const [row] = await orm.em
    .fork()
    .execute<StoredRow[]>(
      'SELECT key, status, fencing_token::text, result, fingerprint FROM processed_message WHERE key = ?',
      [key],
    );
  return row;
}

export async function effectsOf(orm: MikroORM, key: string): Promise<string[]> {
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
export async function expireLease(orm: MikroORM, key: string): Promise<void> {
  await orm.em.fork().execute('UPDATE processed_message SET lease_expires_at = now() WHERE key = ?', [key]);
}
