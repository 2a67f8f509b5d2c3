import pg from 'pg';

/**
 * A pool set up as MikroORM 7's PostgreSqlConnection sets up its own for
 * createOrm (mapOptions, getConnectionOptions, handlePoolErrors) plus
 * libs/db's connection-loss hook:
 * - only host, port, user, password and database are taken from the URL (an
 *   `sslmode` in it is dropped; TLS comes from PGSSLMODE, docs/deploy.md);
 * - `min: 0`, `max: poolMax ?? 10`;
 * - date, timestamp, timestamptz and interval (and their arrays) are parsed
 *   as the strings Postgres sends, not as Date or interval objects
 *   (@mikro-orm/sql's createPostgreSqlTypeParsers): rows read through
 *   `em.execute` carry timestamps as strings, and the stores rely on it;
 * - an error of an idle or a checked-out client is not left unhandled (an
 *   'error' event without a listener would end the process).
 */
export function createPool(url: string, poolMax: number | undefined): pg.Pool {
  const parsed = new URL(url);
  const pool = new pg.Pool({
    host: decodeURIComponent(parsed.hostname),
    port: +parsed.port,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname).replace(/^\//, ''),
    min: 0,
    max: poolMax ?? 10,
    types: typeParsers(),
  });
  // MikroORM logs these as warnings its logger prints only in debug mode; the
  // query in flight rejects on its own, and pg-pool has dropped the client.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', () => {});
  retireConnectionsEndedByServer(pool);
  return pool;
}

const asSent = (text: string) => text;

function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  // date, timestamp, timestamptz, interval
  for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, asSent);
  // Their arrays, as arrays of strings: the parser of text[] (oid 1009, not among pg-types' named
  // builtins), which is postgres-array's parse, as MikroORM's.
  const stringArray: (text: string) => unknown = pg.types.getTypeParser(1009 as number, 'text');
  for (const oid of [1182, 1115, 1185, 1187]) types.setTypeParser(oid, stringArray);
  return types;
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
export function retireConnectionsEndedByServer(pool: pg.Pool): void {
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
