import type { SqlMigration } from '@hireflow/db';
import { idempotencyMigrations } from '@hireflow/idempotency';
import { outboxMigrations } from '@hireflow/messaging';
import type { EntitySchema } from '@mikro-orm/core';
import { ApiKeyProjection, Upload } from './entities.ts';
import { mediaMigrations } from './migrations.ts';

// biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
export const entities: EntitySchema<any, any>[] = [ApiKeyProjection, Upload];
// Library migrations first (idempotency 0000, outbox 0001), then the service's own.
export const migrations: SqlMigration[] = [...idempotencyMigrations, ...outboxMigrations, ...mediaMigrations];
