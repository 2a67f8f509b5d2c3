import pg from 'pg';
import type { SqlMigration } from './migrations.ts';
import type { Database } from './sql.ts';

// The migration runner that replaced MikroORM's Migrator (issue 31, slices 1
// and 3). It keeps the Migrator's bookkeeping as the services configured it,
// so that a database the Migrator migrated is up to date for it, and the
// other way round (test/runner.test.ts holds it to the Migrator, a
// devDependency of this package's tests only):
// - the table `schema_migrations`, created as MigrationStorage.ensureTable
//   creates it, one row per migration, its name without .js/.ts;
// - the table created first, on its own (Migrator.init); then the list's
//   order, not sorted; every pending migration in one transaction
//   (`transactional: true, allOrNothing: true`), each statement sent as
//   written;
// - libs/db's advisory lock around it, and its fast path.
// Not kept: the Migrator runs each migration in a savepoint of that
// transaction and starts it with `set names 'utf8'` (the client encoding pg
// sets anyway); with one transaction for all, a failure rolls back the
// whole run either way.

/** The advisory lock concurrent starters serialise on (as MikroORM's Migrator did under libs/db's `migrate`). */
export const MIGRATION_LOCK = 0x68666d67; // "hfmg"

/** MigrationStorage.ensureTable's DDL on PostgreSQL (serial id, varchar(255) name, timestamptz(6) executed_at). */
const CREATE_TABLE = `create table if not exists "schema_migrations" ("id" serial primary key, "name" varchar(255) not null, "executed_at" timestamptz(6) not null default current_timestamp(6))`;

/**
 * Applies the database's pending migrations and returns their names. A
 * database that has every migration already is answered by one query on the
 * pool, without the lock; otherwise concurrent starters wait for the lock,
 * and each finds what the one before applied.
 */
export async function migrateDatabase(db: Database): Promise<string[]> {
  const names = db.migrations.map((migration) => migration.name);
  if (await namesApplied(names, () => db.em.execute('SELECT name FROM schema_migrations'))) return [];
  return withMigrationLock(db.url, () => applyPending(db));
}

/**
 * Runs `apply` holding the advisory lock concurrent starters serialise on.
 * A session-level lock is taken and released on one connection: a dedicated
 * client, not the pool.
 */
export async function withMigrationLock<T>(url: string, apply: () => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await apply();
  } finally {
    await lock.end();
  }
}

const withoutExtension = (name: string) => name.replace(/\.[jt]s$/, '');

/**
 * Whether `schema_migrations` (its rows, read by `applied`) names every one
 * of `names` (false when the table is missing or the list empty). The
 * Migrator records a name without a .js/.ts extension.
 */
export async function namesApplied(
  names: readonly string[],
  applied: () => Promise<{ name: string }[]>,
): Promise<boolean> {
  if (names.length === 0) return false;
  let rows: { name: string }[];
  try {
    rows = await applied();
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // undefined_table: a new database
    throw error;
  }
  const found = new Set(rows.map((row) => withoutExtension(row.name)));
  return names.every((name) => found.has(withoutExtension(name)));
}

async function applyPending(db: Database): Promise<string[]> {
  // Before the run's transaction, as Migrator.init does: a failed run leaves the table, empty.
  await db.em.execute(CREATE_TABLE);
  return db.em.transactional(async (tx) => {
    const rows = await tx.execute<{ name: string }[]>(
      'select "name" from "schema_migrations" order by "id" asc',
    );
    const applied = new Set(rows.map((row) => withoutExtension(row.name)));
    const done: string[] = [];
    for (const migration of db.migrations) {
      const name = withoutExtension(migration.name);
      if (applied.has(name)) continue;
      for (const statement of statementsOf(migration)) await tx.execute(statement);
      await tx.execute('insert into "schema_migrations" ("name") values (?)', [name]);
      done.push(name);
    }
    return done;
  });
}

/** The statements a migration adds, without the blank ones (as the Migrator's MigrationRunner.getQueries). */
function statementsOf(migration: SqlMigration): string[] {
  return migration.statements.filter((statement) => statement.trim().length > 0);
}
