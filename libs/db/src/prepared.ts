import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

// MikroORM 7 formats parameters into the SQL text (Platform.formatQuery), so
// Postgres parses and plans every statement anew, with its values inlined. A
// hot statement that runs on its own (autocommitted) can skip both: it runs
// on the ORM's own pg pool as a named prepared statement, which each pooled
// connection parses once. Inside a transaction it runs through the EntityManager.

const names = new Map<string, string>();

/** `?` placeholders (as em.execute takes them) as `$1…$n`. The text must have no `?` operator. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function prepared(sql: string): { name: string; text: string } {
  let name = names.get(sql);
  if (!name) {
    name = `hf_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    names.set(sql, name);
  }
  return { name, text: numbered(sql) };
}

/**
 * Runs one statement (`?` placeholders, no `?` operator in its text) and
 * returns its rows: a named prepared statement on the ORM's pool when `em` is
 * not in a transaction, `em.execute` otherwise.
 */
export async function executePrepared<T extends object>(
  em: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  if (em.isInTransaction()) return em.execute<T[]>(sql, params);
  const pool = (await em.getConnection().getNativeClient()) as pg.Pool;
  const { name, text } = prepared(sql);
  const result = await pool.query<T & pg.QueryResultRow>({ name, text, values: params });
  return result.rows;
}
