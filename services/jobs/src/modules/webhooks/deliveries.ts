import { randomUUID } from 'node:crypto';
import type { AnyEvent } from '@hireflow/contracts';
import type { EntityManager } from '@hireflow/db';
import {
  createTaskQueue,
  type Logger,
  type RedisConnection,
  type TaskQueue,
  taskIdFor,
} from '@hireflow/messaging';
import { context, propagation } from '@opentelemetry/api';
import { webhookBody, webhookOf } from './events.ts';
import { insertDeliveries, subscribedEndpoints } from './store.ts';

export const DELIVERY_QUEUE = 'webhook-deliveries';

/** A delivery task carries the delivery's id only: URL, secret and body are read from the database. */
export interface DeliveryTask {
  deliveryId: string;
}

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
export async function createDeliveries(em: EntityManager, event: AnyEvent): Promise<string[]> {
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

/** The delivery queue as producers use it: the inbox after its commit, the API's test and retry. */
export interface DeliveryQueue {
  readonly tasks: TaskQueue<DeliveryTask>;
  /** Adds one task per delivery (its id derived from the delivery's: adding twice is a no-op). */
  add(deliveryIds: string[]): Promise<void>;
  /** Runs a delivery again now, whatever its task's state (a manual retry). */
  runNow(deliveryId: string): Promise<void>;
  close(): Promise<void>;
}

const intentKey = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

export function createDeliveryQueue(options: {
  connection: RedisConnection;
  prefix: string;
  logger?: Logger;
}): DeliveryQueue {
  const tasks = createTaskQueue<DeliveryTask>({
    name: DELIVERY_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    tracerName: '@hireflow/jobs',
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    tasks,
    async add(deliveryIds) {
      for (const deliveryId of deliveryIds)
        await tasks.add('deliver', { deliveryId }, { intentKey: intentKey(deliveryId) });
    },
    async runNow(deliveryId) {
      const key = intentKey(deliveryId);
      const room = await tasks.makeRoom(key);
      if (room === 'failed') await tasks.retryDeadLetter(key);
      else if (room === 'free') await tasks.add('deliver', { deliveryId }, { intentKey: key });
      else {
        // Waiting for its next attempt (or for an open circuit): now.
        const job = await tasks.queue.getJob(taskIdFor(key));
        if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
      }
    },
    close: () => tasks.close(),
  };
}
