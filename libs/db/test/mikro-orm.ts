import type { MigrationObject } from '@mikro-orm/core';
import { Migration, Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import type { SqlMigration } from '../src/migrations.ts';
import { retireConnectionsEndedByServer } from '../src/pool.ts';
import { namesApplied, withMigrationLock } from '../src/runner.ts';

// MikroORM as the services configured it until issue 31's slice 3 (the
// swap to the pg implementation): the reference a few of this package's
// tests hold the pg side to (format.spec.ts, dates.spec.ts, runner.test.ts's
// databases migrated by the Migrator). A devDependency of libs/db only: no
// service, library or tool loads it.

export type { MikroORM };

interface OrmOptions {
  url: string;
  migrations: readonly SqlMigration[];
  poolMax?: number;
}

/** A migration as the Migrator takes it, from its name and statements (as `defineSqlMigration` made it before). */
function migrationObject(migration: SqlMigration): MigrationObject {
  class SqlStatements extends Migration {
    override up(): void {
      for (const statement of migration.statements) this.addSql(statement);
    }
  }
  return { name: migration.name, class: SqlStatements };
}

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 10 },
    driverOptions: { onPoolCreated: retireConnectionsEndedByServer },
    debug: false,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: false },
    migrations: {
      migrationsList: options.migrations.map(migrationObject),
      tableName: 'schema_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  });
}

/** The Migrator's run as libs/db's `migrate` made it: the fast path, then `up` under the advisory lock. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const { migrationsList = [], tableName = 'schema_migrations' } = orm.config.get('migrations');
  const names = migrationsList.map((migration) => migration.name);
  const read = () => orm.em.getConnection().execute<{ name: string }[]>(`SELECT name FROM ${tableName}`);
  if (await namesApplied(names, read)) return [];
  return withMigrationLock(orm.config.get('clientUrl'), async () =>
    (await orm.migrator.up()).map((m) => m.name),
  );
}
