import type { SqlMigration } from '@hireflow/db';
import type { EntitySchema } from '@mikro-orm/core';

// The notifications service's tables: library migrations first, then its own.
// biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
export const entities: EntitySchema<any, any>[] = [];
export const migrations: SqlMigration[] = [];
