/** A migration: its name (recorded in `schema_migrations`) and the SQL statements it runs, in order. */
export interface SqlMigration {
  readonly name: string;
  readonly statements: readonly string[];
}

/**
 * A migration written as plain SQL statements. Names sort: libraries prefix
 * theirs (`0000-idempotency-…`, `0001-outbox-…`) so they run before a service's own.
 */
export function defineSqlMigration(name: string, statements: readonly string[]): SqlMigration {
  return { name, statements: [...statements] };
}
