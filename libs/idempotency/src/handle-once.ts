import type { Database, Sql } from '@hireflow/db';
import { idempotent } from './idempotent.ts';

/**
 * The lease of an inbox handler's idempotency claim: its transaction is a few
 * statements, so its holder commits within milliseconds or its session dies
 * and rolls back. The lease only bounds a frozen holder; a duplicate that
 * meets a live one comes back later (retry-later.ts), well before it ends.
 */
export const HANDLER_LEASE_MS = 10_000;

/**
 * An inbox handler's work, once per event id (what every redelivery of the
 * event shares), in one transaction with its idempotency claim: the effect
 * and the claim's completion commit together. A redelivery gets the first
 * run's result without running the work; one that meets a running holder
 * throws idempotency's "in progress", which the consumer turns into a
 * retry-later.
 */
export function handleOnce<T>(
  db: Database,
  event: { id: string },
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  return idempotent(db, { key: event.id, transactional: true, leaseMs: HANDLER_LEASE_MS }, work);
}
