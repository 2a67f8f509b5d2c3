import type { EntitySchema } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { SqlMigration } from './migrations.ts';

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

interface PooledClient {
  connection: { on(event: 'errorMessage', listener: (message: { severity?: string }) => void): void };
  release?: (error?: Error) => void;
}

/**
 * A connection that dies while checked out goes back to the pool at once,
 * as broken, whatever its holder does next (found by the chaos soak;
 * test/connection-loss.test.ts):
 * - Postgres ends a connection with a FATAL error (shutdown, restart,
 *   failover, pg_terminate_backend) before it closes the socket; the query in
 *   flight fails, and the holder released the connection in the same turn,
 *   before `pg` saw the close: `pg-pool` kept it and the next waiting caller
 *   got a dead connection.
 * - Kysely releases a transaction's connection only once COMMIT or ROLLBACK
 *   succeeds; on a dead connection both fail, the connection stayed checked
 *   out for good, and once the pool's few were gone every caller waited for
 *   ever (a worker stopped consuming after a Postgres cut).
 * Each checkout's `release` is made idempotent, so the holder's own release,
 * should it come later, does nothing.
 */
function retireConnectionsEndedByServer(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const pooled = client as unknown as PooledClient;
    let release: ((error?: Error) => void) | undefined;
    Object.defineProperty(pooled, 'release', {
      configurable: true,
      get: () => release,
      // pg-pool sets a new release function at each checkout.
      set: (fn: (error?: Error) => void) => {
        let done = false;
        release = (error) => {
          if (done) return;
          done = true;
          fn(error);
        };
      },
    });
    const giveBack = (why: string) => release?.(new Error(why));
    pooled.connection.on('errorMessage', (message) => {
      if (message.severity === 'FATAL' || message.severity === 'PANIC') giveBack('ended by the server');
    });
    client.on('end', () => giveBack('connection ended'));
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

const MIGRATION_LOCK = 0x68666d67; // "hfmg"

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
