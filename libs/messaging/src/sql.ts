import type pg from 'pg';

// What the outbox and the event log need of @hireflow/db's `Sql` scope and
// `Database`, written here (structurally) so that the packed package needs
// `pg`, not the workspace's db package: @hireflow/db's own types satisfy
// them (issue 31, slice 3: MikroORM's EntityManager and MikroORM before).

/** A scope to run statements in (@hireflow/db's `Sql`): the pool, or one transaction. */
export interface SqlScope {
  /** `?` placeholders; rows, or with `'run'` `{ affectedRows, … }`. */
  execute<T = Record<string, unknown>[]>(
    sql: string,
    params?: readonly unknown[],
    method?: 'all' | 'run',
  ): Promise<T>;
  transactional<T>(work: (tx: SqlScope) => T | Promise<T>): Promise<T>;
  /** A new scope on the pool, never in this scope's transaction. */
  fork(): SqlScope;
  isInTransaction(): boolean;
}

/** One pool and its root scope (@hireflow/db's `Database`). */
export interface SqlDatabase {
  readonly em: SqlScope;
  readonly pool: pg.Pool;
  /** For a dedicated connection (the relay's LISTEN client). */
  readonly url: string;
}
