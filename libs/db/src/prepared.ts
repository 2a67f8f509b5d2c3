import { createHash } from 'node:crypto';
import { isPgScope, type PreparedStatement, type Sql } from './sql.ts';

// `execute` formats parameters into the SQL text (format.ts, as MikroORM's
// em.execute did), so Postgres parses and plans every statement anew, with
// its values inlined. A hot statement can skip both as a named prepared
// statement, which each connection parses once: on the pool when
// autocommitted, on the transaction's own connection inside one (sql.ts).
// Its parameters are typed by Postgres from their context, so a parameter
// that context does not type (a SELECT list, an operand of an overloaded
// operator) needs an explicit cast: `?::jsonb`, `?::float8 * interval '1 ms'`.

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

/**
 * Runs one statement (`?` placeholders, no `?` operator in its text) as a
 * named prepared statement and returns its rows: on the pool when `scope` is
 * not in a transaction, on the transaction's connection when it is
 * (test/prepared.test.ts).
 */
export async function executePrepared<T extends object>(
  scope: Sql,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  if (!isPgScope(scope)) throw new TypeError('executePrepared: not a scope of @hireflow/db');
  return scope.prepared<T>(prepared(sql), params);
}
