import { type AnyEvent, type CloudEvent, parseEvent, topicOf } from '@hireflow/contracts';
import type { EntityManager } from '@mikro-orm/core';
import { injectTrace } from '../trace.ts';
import { OutboxMessage, type OutboxMessageEntity } from './entity.ts';

/**
 * Adds the event to the outbox in `em`'s unit of work: it is written by the
 * same `em.flush()` / `em.transactional()` that writes the state change, and
 * keeps the active trace context so the consumer's span joins this trace.
 * The event is validated again here: an invalid event never leaves the service.
 */
export function enqueueEvent(em: EntityManager, event: CloudEvent | AnyEvent): OutboxMessageEntity {
  const valid = parseEvent(event);
  const trace = injectTrace();
  const row = em.create(OutboxMessage, {
    eventId: valid.id,
    topic: topicOf(valid.type),
    type: valid.type,
    payload: valid,
    traceparent: trace.traceparent ?? null,
    tracestate: trace.tracestate ?? null,
    baggage: trace.baggage ?? null,
  });
  em.persist(row);
  return row;
}
