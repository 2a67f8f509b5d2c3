import type { SqlMigration } from '@hireflow/db';
import { idempotencyMigrations } from '@hireflow/idempotency';
import { outboxMigrations } from '@hireflow/messaging';
import { jobsMigrations } from './migrations.ts';

// Library migrations first (idempotency 0000, outbox 0001), then the service's own.
export const migrations: SqlMigration[] = [...idempotencyMigrations, ...outboxMigrations, ...jobsMigrations];
