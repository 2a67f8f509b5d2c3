import type { SqlMigration } from '@hireflow/db';
import { idempotencyMigrations } from '@hireflow/idempotency';
import type { EntitySchema } from '@mikro-orm/core';
import { CandidateProjection, NotificationLog, PostingProjection } from './entities.ts';
import { notificationsMigrations } from './migrations.ts';

// biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
export const entities: EntitySchema<any, any>[] = [CandidateProjection, PostingProjection, NotificationLog];
// Library migrations first (idempotency 0000), then the service's own. No outbox: notifications publishes nothing.
export const migrations: SqlMigration[] = [...idempotencyMigrations, ...notificationsMigrations];
