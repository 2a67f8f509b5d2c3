import {
  type AnyEvent,
  type AnyEventOf,
  type Catalog,
  type CloudEvent,
  type EventContractsView,
  hireflowEvents,
} from '@hireflow/contracts';
import type { SqlScope } from '../sql.ts';
import { injectTrace } from '../trace.ts';
import { insertRows, insertStatement, type OutboxRow, type OutboxStatement } from './store.ts';

type AnyCloudEvent = CloudEvent | AnyEvent | AnyEventOf<Catalog>;

/**
 * Writes the event to the outbox with an INSERT on `em`: in the caller's
 * transaction (`em.transactional`), so it commits with the state change or
 * not at all. It keeps the active trace context so the consumer's span joins
 * this trace. The event is validated again here: an invalid event never
 * leaves the service. `contracts` is the catalog it belongs to (a test's own,
 * with a v2 fixture). Await it inside the transaction.
 */
export function enqueueEvent(
  em: SqlScope,
  event: AnyCloudEvent,
  contracts: EventContractsView = hireflowEvents,
): Promise<void> {
  return enqueueEvents(em, [event], contracts);
}

/**
 * Writes the events to the outbox in one INSERT (one round trip, their rows
 * in this order), as `enqueueEvent` writes one. Every event is validated
 * before anything is written. No events, no statement.
 */
export async function enqueueEvents(
  em: SqlScope,
  events: readonly AnyCloudEvent[],
  contracts: EventContractsView = hireflowEvents,
): Promise<void> {
  if (events.length === 0) return;
  await insertRows(
    em,
    events.map((event) => outboxRow(event, contracts)),
  );
}

/**
 * The same outbox row as a SQL statement to compose with the state change,
 * for hot paths where one statement beats two: e.g.
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
  event: AnyCloudEvent,
  options: { from?: string; republish?: boolean } = {},
  contracts: EventContractsView = hireflowEvents,
): OutboxStatement {
  return insertStatement(outboxRow(event, contracts), options);
}

/** The row an event is written as: validated again, with the active trace context. */
function outboxRow(event: AnyCloudEvent, contracts: EventContractsView): OutboxRow {
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
