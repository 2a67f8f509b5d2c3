import type { MigrationObject } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';

export type SqlMigration = MigrationObject;

/**
 * A migration written as plain SQL statements. Names sort: libraries prefix
 * theirs (`0000-idempotency-…`, `0001-outbox-…`) so they run before a service's own.
 */
export function defineSqlMigration(name: string, statements: string[]): SqlMigration {
  class SqlStatements extends Migration {
    override up(): void {
      for (const statement of statements) this.addSql(statement);
    }
  }
  return { name, class: SqlStatements };
}
