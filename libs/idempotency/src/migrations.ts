import { defineSqlMigration } from '@hireflow/db';

export const processedMessageTable = 'processed_message';

/**
 * Every service prepends these to its own migrations. The fencing token comes
 * from a sequence rather than a per-row counter so that it never repeats, even
 * after a released or pruned key is claimed again: a stale holder's token can
 * never match a newer claim.
 */
export const idempotencyMigrations = [
  defineSqlMigration('0000-idempotency-processed-message', [
    'CREATE SEQUENCE processed_message_fencing_token_seq AS bigint',
    `CREATE TABLE processed_message (
      key text PRIMARY KEY,
      status text NOT NULL CHECK (status IN ('in_progress', 'completed')),
      fencing_token bigint NOT NULL,
      lease_expires_at timestamptz,
      result jsonb,
      fingerprint text,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      expires_at timestamptz NOT NULL,
      CHECK (status = 'completed' OR lease_expires_at IS NOT NULL)
    )`,
    'CREATE INDEX processed_message_expires_at_idx ON processed_message (expires_at)',
  ]),
];
