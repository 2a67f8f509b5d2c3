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
  _queryable: boolean;
}

/**
 * Postgres ends a connection with a FATAL error (shutdown, restart, failover,
 * pg_terminate_backend) before it closes the socket. The query in flight fails
 * at once and is released to the pool in the same turn, before `pg` has seen
 * the socket close: `pg-pool` keeps a released client unless it is marked not
 * queryable, so it went back into the pool and the next waiting caller got a
 * dead connection (found by the chaos soak; test/connection-loss.test.ts).
 * Marking it at the FATAL message makes the pool drop it on release.
 */
function retireConnectionsEndedByServer(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const pooled = client as unknown as PooledClient;
    pooled.connection.on('errorMessage', (message) => {
      if (message.severity === 'FATAL' || message.severity === 'PANIC') pooled._queryable = false;
    });
  });
}

/** Applies pending migrations. Concurrent starters serialise on an advisory lock. */
export async function migrate(orm: MikroORM): Promise<string[]> {
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
