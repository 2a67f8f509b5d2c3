import type { SqlMigration } from '@hireflow/db';
import { idempotencyMigrations } from '@hireflow/idempotency';
import { notificationsMigrations } from './migrations.ts';

// Library migrations first (idempotency 0000), then the service's own. No outbox: notifications publishes nothing.
export const migrations: SqlMigration[] = [...idempotencyMigrations, ...notificationsMigrations];
