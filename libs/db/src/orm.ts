import type { EntitySchema } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { SqlMigration } from './migrations.ts';
import { retireConnectionsEndedByServer } from './pool.ts';
import { MIGRATION_LOCK } from './runner.ts';

export interface OrmOptions {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
  entities: EntitySchema<any, any>[];
  /** Library migrations first, then the service's own; applied in this order. */
  migrations: SqlMigration[];
  poolMax?: number;
  debug?: boolean;
}

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities: options.entities,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 10 },
    driverOptions: { onPoolCreated: retireConnectionsEndedByServer },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    // A service may own only library tables (outbox, idempotency) at first.
    discovery: { warnWhenNoEntities: false },
    migrations: {
      migrationsList: options.migrations,
      tableName: 'schema_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  });
}

/**
 * Applies pending migrations. Concurrent starters serialise on an advisory
 * lock. A database that has every migration already (every start but the
 * first of a version) is answered by one query on the ORM's pool, without
 * the lock's own connection or the Migrator's probes (issue 31: a share of a
 * process's start; migrations are only ever added, so a name found applied
 * stays applied).
 */
export async function migrate(orm: MikroORM): Promise<string[]> {
  if (await upToDate(orm)) return [];
  // A session-level lock must be taken and released on one connection, so it
  // lives on a dedicated client rather than on the ORM's pool.
  const lock = new pg.Client({ connectionString: orm.config.get('clientUrl') });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await orm.migrator.up();
    return applied.map((m) => m.name);
  } finally {
    await lock.end();
  }
}

/** Whether `schema_migrations` names every migration of the ORM's list (false when the table is missing). */
async function upToDate(orm: MikroORM): Promise<boolean> {
  const { migrationsList = [], tableName = 'schema_migrations' } = orm.config.get('migrations');
  if (migrationsList.length === 0) return false;
  let rows: { name: string }[];
  try {
    rows = await orm.em.getConnection().execute<{ name: string }[]>(`SELECT name FROM ${tableName}`);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // undefined_table: a new database
    throw error;
  }
  // The Migrator records a name without a .js/.ts extension.
  const applied = new Set(rows.map((row) => row.name.replace(/\.[jt]s$/, '')));
  return migrationsList.every((migration) => applied.has(migration.name.replace(/\.[jt]s$/, '')));
}
