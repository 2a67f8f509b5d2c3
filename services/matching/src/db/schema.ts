import type { SqlMigration } from '@hireflow/db';
import { idempotencyMigrations } from '@hireflow/idempotency';
import { outboxMigrations } from '@hireflow/messaging';
import type { EntitySchema } from '@mikro-orm/core';
import { Candidate, Posting, PostingMatch } from './entities.ts';
import { matchingMigrations } from './migrations.ts';

// biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
export const entities: EntitySchema<any, any>[] = [Posting, Candidate, PostingMatch];
// Library migrations first (idempotency 0000, outbox 0001), then the service's own.
export const migrations: SqlMigration[] = [
  ...idempotencyMigrations,
  ...outboxMigrations,
  ...matchingMigrations,
];
