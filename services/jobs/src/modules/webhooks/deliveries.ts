import { randomUUID } from 'node:crypto';
import type { AnyEvent } from '@hireflow/contracts';
import type { Database, Sql } from '@hireflow/db';
import type { Logger } from '@hireflow/messaging';
import { context, propagation } from '@opentelemetry/api';
import { webhookBody, webhookOf } from './events.ts';
import { insertDeliveries, notifyDeliveriesDue, subscribedEndpoints } from './store.ts';

/** The W3C traceparent of the active context, kept with a delivery so every attempt joins the event's trace. */
export function activeTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * The deliveries an inbox event makes: one per enabled endpoint of the
 * event's tenant subscribed to its webhook type, in the handler's
 * transaction (under its idempotency claim). A delivery already there for
 * (endpoint, event) stays as it is. Returns the ids created.
 */
export async function createDeliveries(em: Sql, event: AnyEvent): Promise<string[]> {
  const webhook = webhookOf(event);
  if (!webhook) return [];
  const endpoints = await subscribedEndpoints(em, webhook.tenantId, webhook.type);
  if (endpoints.length === 0) return [];
  const body = webhookBody(webhook.type, event.time, webhook.data);
  const traceparent = activeTraceparent();
  const now = new Date();
  return insertDeliveries(
    em,
    endpoints.map((endpoint) => ({
      id: randomUUID(),
      endpointId: endpoint.id,
      tenantId: webhook.tenantId,
      eventId: event.id,
      type: webhook.type,
      body,
      traceparent,
      createdAt: now,
    })),
  );
}

/**
 * Where producers say they made deliveries due: the deliveries are rows
 * (the table is the queue), so this only wakes the delivery workers; a worker
 * not woken finds them within a second (delivery-worker.ts).
 */
export interface DeliveryQueue {
  add(deliveryIds: string[]): Promise<void>;
}

/** For a process without the delivery worker (the API's test and retry): a NOTIFY the workers LISTEN for. */
export function createDeliveryQueue(options: { orm: Database; log?: Logger }): DeliveryQueue {
  return {
    async add(deliveryIds) {
      if (deliveryIds.length === 0) return;
      await notifyDeliveriesDue(options.orm.em.fork()).catch((error: unknown) =>
        options.log?.warn({ err: error }, 'webhook NOTIFY failed: the workers poll for the delivery'),
      );
    },
  };
}
