import {
  type AnyEvent,
  type AnyEventOf,
  type Catalog,
  type CloudEvent,
  type EventContractsView,
  hireflowEvents,
} from '@hireflow/contracts';
import type { EntityManager } from '@mikro-orm/core';
import { injectTrace } from '../trace.ts';
import { OutboxMessage, type OutboxMessageEntity } from './entity.ts';
import { insertStatement, type OutboxRow, type OutboxStatement } from './store.ts';

/**
 * Adds the event to the outbox in `em`'s unit of work: it is written by the
 * same `em.flush()` / `em.transactional()` that writes the state change, and
 * keeps the active trace context so the consumer's span joins this trace.
 * The event is validated again here: an invalid event never leaves the service.
 * `contracts` is the catalog it belongs to (a test's own, with a v2 fixture).
 */
export function enqueueEvent(
  em: EntityManager,
  event: CloudEvent | AnyEvent | AnyEventOf<Catalog>,
  contracts: EventContractsView = hireflowEvents,
): OutboxMessageEntity {
  const row = em.create(OutboxMessage, outboxRow(event, contracts));
  em.persist(row);
  return row;
}

/**
 * The same outbox row as a SQL statement to compose with the state change,
 * for hot paths where one statement beats a unit of work: e.g.
 * `WITH posting AS (INSERT … RETURNING id) <sql> FROM posting`, which writes
 * both rows atomically in a single round trip (or neither, when `from` yields
 * no row). Validates the event and captures the active trace like
 * `enqueueEvent`; the statement's text is the outbox store's.
 *
 * `republish: true` is for events whose id derives from what they announce
 * (a re-announcement of the same fact): a row with that event id is reset to
 * pending instead of refused, so the relay publishes it again, and consumers,
 * idempotent by event id, apply it once wherever they already had it.
 */
export function outboxInsertStatement(
  event: CloudEvent | AnyEvent | AnyEventOf<Catalog>,
  options: { from?: string; republish?: boolean } = {},
  contracts: EventContractsView = hireflowEvents,
): OutboxStatement {
  return insertStatement(outboxRow(event, contracts), options);
}

/** The row an event is written as: validated again, with the active trace context. */
function outboxRow(
  event: CloudEvent | AnyEvent | AnyEventOf<Catalog>,
  contracts: EventContractsView,
): OutboxRow {
  const valid = contracts.parse(event);
  const trace = injectTrace();
  return {
    eventId: valid.id,
    topic: contracts.topicOf(valid.type),
    type: valid.type,
    // Stored as JSON: an event of whichever catalog validated it.
    payload: valid as AnyEvent,
    traceparent: trace.traceparent ?? null,
    tracestate: trace.tracestate ?? null,
    baggage: trace.baggage ?? null,
  };
}
