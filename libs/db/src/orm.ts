import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import type { SqlMigration } from './migrations.ts';
import { retireConnectionsEndedByServer } from './pool.ts';
import { namesApplied, withMigrationLock } from './runner.ts';

export interface OrmOptions {
  url: string;
  /** Library migrations first, then the service's own; applied in this order. */
  migrations: SqlMigration[];
  poolMax?: number;
  debug?: boolean;
}

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    // No entity: the services read and write with SQL through `em.execute` (issue 31, slice 2).
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 10 },
    driverOptions: { onPoolCreated: retireConnectionsEndedByServer },
    debug: options.debug ?? false,
    allowGlobalContext: false,
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
  const { migrationsList = [], tableName = 'schema_migrations' } = orm.config.get('migrations');
  const names = migrationsList.map((migration) => migration.name);
  const read = () => orm.em.getConnection().execute<{ name: string }[]>(`SELECT name FROM ${tableName}`);
  if (await namesApplied(names, read)) return [];
  return withMigrationLock(orm.config.get('clientUrl'), async () =>
    (await orm.migrator.up()).map((m) => m.name),
  );
}
