import type pg from 'pg';
import { formatQuery } from './format.ts';
import type { SqlMigration } from './migrations.ts';
import { createPool } from './pool.ts';

// The part of MikroORM's EntityManager the services used, on one pg pool
// (issue 31: beside MikroORM in slice 1, in its place since slice 3, the
// swap; test/sql.test.ts checks it).

type Row = Record<string, unknown>;

/** A scope to run statements in: the pool (autocommit) or one transaction. */
export interface Sql {
  /**
   * Runs `sql` with its `?` replaced by `params` written into the text, as
   * MikroORM's `em.execute` does (format.ts), and returns its rows; with
   * `'run'`, `{ affectedRows, insertId, row, rows }`. A text of several
   * statements (no parameters) runs whole and gives no rows.
   */
  execute<T = Row[]>(sql: string, params?: readonly unknown[], method?: 'all' | 'run'): Promise<T>;
  /**
   * Runs `work` in a transaction (BEGIN … COMMIT on one connection, the
   * server's default isolation: READ COMMITTED), rolled back if it throws.
   * On a transaction's scope: a SAVEPOINT, released, or rolled back to if
   * `work` throws.
   */
  transactional<T>(work: (tx: Sql) => T | Promise<T>): Promise<T>;
  /** A new scope on the pool, never inside this scope's transaction. */
  fork(): Sql;
  isInTransaction(): boolean;
}

/**
 * The pool `scope` runs on (a connection of its own for a caller that
 * needs one: the outbox relay's batch, the webhooks' delivery claim).
 */
export function poolOf(scope: Sql): pg.Pool {
  if (!isPgScope(scope)) throw new TypeError('poolOf: not a scope of @hireflow/db');
  return scope.pool;
}

/** A named prepared statement: what pg takes as `{ name, text, values }` (prepared.ts names them). */
export interface PreparedStatement {
  name: string;
  /** `$1…$n` placeholders. */
  text: string;
}

/** One pool, the root scope (`db.em.fork()` as `orm.em.fork()`), the migrations `migrateDatabase` applies. */
export interface Database {
  readonly em: Sql;
  readonly pool: pg.Pool;
  /** For a dedicated connection (the migration lock, a LISTEN client). */
  readonly url: string;
  readonly migrations: readonly SqlMigration[];
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  /** Library migrations first, then the service's own; applied in this order. */
  migrations: readonly SqlMigration[];
  poolMax?: number;
}

export function createDatabase(options: DatabaseOptions): Database {
  const pool = createPool(options.url, options.poolMax);
  return {
    em: new PoolScope(pool),
    pool,
    url: options.url,
    migrations: options.migrations,
    close: () => pool.end(),
  };
}

type Method = 'all' | 'run';

/** Whether `value` is a scope of this implementation (not a test double): `executePrepared` needs one. */
export function isPgScope(value: unknown): value is PgScope {
  return value instanceof PoolScope || value instanceof TransactionScope;
}

/**
 * A scope on `client`, a connection of `pool` the caller has checked out and
 * holds in a transaction of its own (it sent BEGIN and sends COMMIT or
 * ROLLBACK itself, maybe with other statements in the same query, as
 * idempotency's owned transaction does): statements run on `client`, a
 * nested `transactional` is a savepoint on it, `fork` a scope on the pool.
 * Call `end` once the transaction is over (or before the owner commits): the
 * scope then refuses statements, as a transaction's scope does after its
 * callback, for the connection may be in another caller's hands.
 */
export function transactionScopeOn(client: pg.ClientBase, pool: pg.Pool): { scope: Sql; end(): void } {
  const state = { ended: false };
  return {
    scope: new TransactionScope(client, pool, 0, state),
    end: () => {
      state.ended = true;
    },
  };
}

/** Commands whose count is the affected rows (Kysely's PostgresConnection); for others, the rows returned. */
const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** MikroORM's transformRawResult over what Kysely made of pg's result. */
function resultOf(result: pg.QueryResult | pg.QueryResult[], method: Method): unknown {
  // Several statements give an array of results, from which Kysely read no rows and no command.
  const single = Array.isArray(result) ? undefined : result;
  const rows: Row[] = single?.rows ?? [];
  if (method === 'all') return rows;
  const counted = single !== undefined && COUNTED.has(single.command);
  return {
    affectedRows: counted ? Number(single.rowCount) : rows.length,
    insertId: undefined,
    row: rows[0],
    rows,
  };
}

/** A scope of this implementation: a `Sql` that also runs named prepared statements. */
interface PgScope extends Sql {
  /**
   * Runs `statement` with `values` as bind parameters (pg's extended
   * protocol: parsed once per connection under its name) and returns its
   * rows (`executePrepared`, prepared.ts).
   */
  prepared<T extends object>(statement: PreparedStatement, values: readonly unknown[]): Promise<T[]>;
  /** The pool it runs on (`poolOf`). */
  readonly pool: pg.Pool;
}

/** Statements on the pool, each on whichever connection is free (autocommit). */
class PoolScope implements PgScope {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  get pool(): pg.Pool {
    return this.#pool;
  }

  async execute<T = Row[]>(sql: string, params: readonly unknown[] = [], method: Method = 'all'): Promise<T> {
    const text = formatQuery(sql, params);
    const client = await this.#pool.connect();
    try {
      return resultOf(await client.query(text), method) as T;
    } finally {
      // Given back as healthy even when the statement failed, as Kysely does: a
      // connection the server ended is retired by the pool hook (pool.ts).
      client.release();
    }
  }

  async prepared<T extends object>(statement: PreparedStatement, values: readonly unknown[]): Promise<T[]> {
    const client = await this.#pool.connect();
    try {
      return (await client.query<T & pg.QueryResultRow>({ ...statement, values: [...values] })).rows;
    } finally {
      // As execute: a failed statement (a duplicate key) keeps the connection, and the statements prepared on it.
      client.release();
    }
  }

  async transactional<T>(work: (tx: Sql) => T | Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    const state = { ended: false };
    let result: T;
    try {
      result = await work(new TransactionScope(client, this.#pool, 0, state));
      await client.query('COMMIT');
    } catch (error) {
      state.ended = true;
      try {
        await client.query('ROLLBACK');
        client.release();
      } catch (rollbackError) {
        // A connection that can neither commit nor roll back (the server
        // ended it) is destroyed, not kept checked out for good.
        client.release(rollbackError as Error);
      }
      throw error;
    }
    state.ended = true;
    client.release();
    return result;
  }

  fork(): Sql {
    return new PoolScope(this.#pool);
  }

  isInTransaction(): boolean {
    return false;
  }
}

/** Statements on a transaction's connection; a nested `transactional` is a savepoint on it. */
class TransactionScope implements PgScope {
  readonly #client: pg.ClientBase;
  readonly #pool: pg.Pool;
  readonly #depth: number;
  readonly #state: { ended: boolean };

  constructor(client: pg.ClientBase, pool: pg.Pool, depth: number, state: { ended: boolean }) {
    this.#client = client;
    this.#pool = pool;
    this.#depth = depth;
    this.#state = state;
  }

  get pool(): pg.Pool {
    return this.#pool;
  }

  async execute<T = Row[]>(sql: string, params: readonly unknown[] = [], method: Method = 'all'): Promise<T> {
    const text = formatQuery(sql, params);
    this.#assertOpen();
    return resultOf(await this.#client.query(text), method) as T;
  }

  async prepared<T extends object>(statement: PreparedStatement, values: readonly unknown[]): Promise<T[]> {
    this.#assertOpen();
    return (await this.#client.query<T & pg.QueryResultRow>({ ...statement, values: [...values] })).rows;
  }

  async transactional<T>(work: (tx: Sql) => T | Promise<T>): Promise<T> {
    this.#assertOpen();
    // MikroORM names a savepoint by its depth: trx1, trx2, …
    const savepoint = `trx${this.#depth + 1}`;
    await this.#client.query(`SAVEPOINT ${savepoint}`);
    try {
      const result = await work(new TransactionScope(this.#client, this.#pool, this.#depth + 1, this.#state));
      await this.#client.query(`RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (error) {
      // As MikroORM: a failing rollback does not hide why the work failed.
      await this.#client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`).catch(() => {});
      throw error;
    }
  }

  fork(): Sql {
    return new PoolScope(this.#pool);
  }

  isInTransaction(): boolean {
    return true;
  }

  /** After COMMIT or ROLLBACK the connection is back in the pool, maybe in another caller's transaction. */
  #assertOpen(): void {
    if (this.#state.ended)
      throw new Error('the transaction has ended: use its scope inside its callback only');
  }
}
