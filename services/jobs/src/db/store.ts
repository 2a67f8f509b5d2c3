import type { Sql } from '@hireflow/db';

// Statements shared by the modules' stores: the keyset page of a tenant's rows.

/** A table listed newest first: its columns to read and the time column it is sorted by (then id). */
export interface NewestFirstSource {
  table: string;
  columns: string;
  timeColumn: string;
}

/**
 * Up to `limit` + 1 of the tenant's rows of `source`, newest first by its
 * time column then id, after the keyset `after` (the condition and order
 * MikroORM built: `(t < ? OR (t = ? AND id < ?))`, `t DESC, id DESC`):
 * `newestFirstPage` (http/pagination.ts) splits them into a page and the
 * next cursor. The table and column names are the stores' constants, never
 * input.
 */
export function newestFirstRows<R>(
  em: Sql,
  source: NewestFirstSource,
  tenantId: string,
  after: { at: Date; id: string } | undefined,
  limit: number,
): Promise<R[]> {
  const t = source.timeColumn;
  return em.execute<R[]>(
    `SELECT ${source.columns} FROM ${source.table}
      WHERE tenant_id = ? ${after ? `AND (${t} < ? OR (${t} = ? AND id < ?))` : ''}
      ORDER BY ${t} DESC, id DESC LIMIT ?`,
    [tenantId, ...(after ? [after.at, after.at, after.id] : []), limit + 1],
  );
}
