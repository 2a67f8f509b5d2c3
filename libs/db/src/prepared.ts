import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { isPgScope, type PreparedStatement, type Sql } from './sql.ts';

// MikroORM 7 formats parameters into the SQL text (Platform.formatQuery), so
// Postgres parses and plans every statement anew, with its values inlined. A
// hot statement can skip both as a named prepared statement, which each
// connection parses once: on the ORM's own pg pool when autocommitted, on the
// transaction's own connection inside one (through the Kysely transaction
// MikroORM holds, whose Postgres connection hands the query to pg as it is).
// Its parameters are typed by Postgres from their context, so a parameter
// that context does not type (a SELECT list, an operand of an overloaded
// operator) needs an explicit cast: `?::jsonb`, `?::float8 * interval '1 ms'`.
// The pg implementation's scope (sql.ts) does the same on its own pool or
// transaction connection (issue 31, slice 1b): one function takes either
// until the services move to it.

const statements = new Map<string, PreparedStatement>();

/** `?` placeholders (as em.execute takes them) as `$1…$n`. The text must have no `?` operator. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The statement's name and numbered text, worked out once per SQL text. */
function prepared(sql: string): PreparedStatement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = {
      name: `hf_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`,
      text: numbered(sql),
    };
    statements.set(sql, statement);
  }
  return statement;
}

/** What MikroORM's transaction context is: a Kysely transaction, which runs a compiled query. */
interface KyselyTransaction {
  executeQuery(query: {
    sql: unknown;
    parameters: readonly unknown[];
    query: unknown;
    queryId: unknown;
  }): Promise<{
    rows: unknown[];
  }>;
}

/**
 * Runs one statement (`?` placeholders, no `?` operator in its text) as a
 * named prepared statement and returns its rows: on the pool when `scope` is
 * not in a transaction, on the transaction's connection when it is. `scope`
 * is MikroORM's EntityManager (also when carried as a `Sql`, scope.ts) or a
 * scope of the pg implementation (sql.ts); the rows are the same either way
 * (test/prepared.test.ts).
 */
export async function executePrepared<T extends object>(
  scope: EntityManager | Sql,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const statement = prepared(sql);
  if (isPgScope(scope)) return scope.prepared<T>(statement, params);
  const em = scope as EntityManager;
  const { name, text } = statement;
  if (em.isInTransaction()) {
    const tx = em.getTransactionContext<KyselyTransaction>();
    if (typeof tx?.executeQuery !== 'function') return em.execute<T[]>(sql, params);
    // pg takes `{ name, text }` in place of the text: Kysely passes `sql` to `client.query` untouched.
    const result = await tx.executeQuery({
      sql: { name, text },
      parameters: params,
      query: { kind: 'RawNode', sqlFragments: [], parameters: [] },
      queryId: { queryId: name },
    });
    return result.rows as T[];
  }
  const pool = (await em.getConnection().getNativeClient()) as pg.Pool;
  const result = await pool.query<T & pg.QueryResultRow>({ name, text, values: params });
  return result.rows;
}
