// A producer that speaks a new event version still owes the old one to its
// subscribers until the old one's sunset (docs/contracts.md). The catalog's
// deprecation says how to build the old version from the new: this writes
// both into the outbox in the caller's transaction, so the state change and
// every version of its event commit together or not at all.
import {
  type AnyEvent,
  type AnyEventOf,
  type Catalog,
  type CloudEvent,
  type EventContractsView,
  hireflowEvents,
} from '@hireflow/contracts';
import type { SqlScope } from '../sql.ts';
import { enqueueEvents } from './enqueue.ts';

/**
 * Writes the event and its copy in each older version still published (see
 * EventContracts.versionsOf) to the outbox in one INSERT on `em`: one row
 * each, in the caller's transaction (`em.transactional`) with the state
 * change. The copies' ids derive from the event's, so consumers idempotent
 * by event id see each copy once; consumers of both versions key by intent.
 * With `outboxInsertStatement`, write `contracts.versionsOf(event)` the same way.
 */
export async function enqueueVersions(
  em: SqlScope,
  event: CloudEvent | AnyEvent | AnyEventOf<Catalog>,
  contracts: EventContractsView = hireflowEvents,
): Promise<void> {
  await enqueueEvents(em, contracts.versionsOf(contracts.parse(event)), contracts);
}
