import type { AnyEvent } from '@hireflow/contracts';
import { defineEntity, p } from '@mikro-orm/core';

/**
 * One event waiting to be relayed to SNS. Persisted with the state change it
 * announces, in the same transaction, so both commit or neither does.
 */
export const OutboxMessage = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    eventId: p.uuid().unique(),
    /** Logical topic name from the catalog (`jobs-events`); the relay maps it to an ARN. */
    topic: p.string(),
    type: p.string(),
    payload: p.json<AnyEvent>(),
    traceparent: p.string().nullable(),
    tracestate: p.string().nullable(),
    baggage: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    sentAt: p.datetime().nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
});

export type OutboxMessageEntity = InstanceType<typeof OutboxMessage.class>;
