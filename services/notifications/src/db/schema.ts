import type { SqlMigration } from '@hireflow/db';
import { idempotencyMigrations } from '@hireflow/idempotency';
import type { EntitySchema } from '@mikro-orm/core';
import { notificationsMigrations } from './migrations.ts';

// No entity: the stores read and write with SQL (issue 31, slice 2).
// biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
export const entities: EntitySchema<any, any>[] = [];
// Library migrations first (idempotency 0000), then the service's own. No outbox: notifications publishes nothing.
export const migrations: SqlMigration[] = [...idempotencyMigrations, ...notificationsMigrations];
