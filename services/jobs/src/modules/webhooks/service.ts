import { randomUUID } from 'node:crypto';
import type { Sql } from '@hireflow/db';
import { HttpProblem } from '@hireflow/runtime';
import { activeTraceparent } from './deliveries.ts';
import { TEST_EVENT_TYPE, webhookBody } from './events.ts';
import { newSecret, webhookId } from './signing.ts';
import { urlProblem } from './ssrf.ts';
import {
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
  insertDeliveries,
  insertEndpoint,
  lockAndCountEndpoints,
} from './store.ts';

/** At most this many endpoints per tenant. */
export const MAX_ENDPOINTS_PER_TENANT = 10;

export interface NewEndpoint {
  url: string;
  events: string[];
  description?: string | undefined;
}

/** A URL the API refuses names the field (400), like every other bad input. */
export function checkUrl(url: string, allowHttp: boolean): void {
  const problem = urlProblem(url, { allowHttp });
  if (problem) {
    throw new HttpProblem(400, 'VALIDATION_FAILED', `url ${problem}`, {
      errors: [{ field: 'url', message: problem }],
    });
  }
}

/** Registers an endpoint with a new secret; the tenant's limit holds between concurrent registrations. */
export async function createEndpoint(
  em: Sql,
  tenantId: string,
  input: NewEndpoint,
): Promise<{ id: string; secret: string; createdAt: Date }> {
  return em.transactional(async (tx) => {
    if ((await lockAndCountEndpoints(tx, tenantId)) >= MAX_ENDPOINTS_PER_TENANT) {
      throw new HttpProblem(
        409,
        'ENDPOINT_LIMIT',
        `A tenant has at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first`,
      );
    }
    const id = randomUUID();
    const secret = newSecret();
    const now = new Date();
    await insertEndpoint(tx, {
      id,
      tenantId,
      url: input.url,
      description: input.description ?? '',
      events: [...new Set(input.events)],
      secret,
      now,
    });
    return { id, secret, createdAt: now };
  });
}

/** A `webhook.test` delivery to one endpoint, now. Returns its id. */
export async function createTestDelivery(em: Sql, endpoint: EndpointRow): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await insertDeliveries(em, [
    {
      id,
      endpointId: endpoint.id,
      tenantId: endpoint.tenantId,
      eventId: `test-${id}`,
      type: TEST_EVENT_TYPE,
      body: webhookBody(TEST_EVENT_TYPE, now.toISOString(), {
        endpointId: endpoint.id,
        message: 'A test delivery from Hireflow',
      }),
      traceparent: activeTraceparent(),
      createdAt: now,
    },
  ]);
  return id;
}

/** The API's view of an endpoint (never its secret). */
export function toEndpointView(endpoint: EndpointRow) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export function toDeliveryView(delivery: DeliveryRow) {
  return {
    id: delivery.id,
    webhookId: webhookId(delivery.id),
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatus,
    lastLatencyMs: delivery.lastLatencyMs,
    lastError: delivery.lastError,
    nextAttemptAt: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: delivery.createdAt.toISOString(),
  };
}

export function toAttemptView(attempt: AttemptRow) {
  return {
    attemptedAt: attempt.attemptedAt.toISOString(),
    statusCode: attempt.statusCode,
    latencyMs: attempt.latencyMs,
    error: attempt.error,
    responseBody: attempt.responseBody,
  };
}
