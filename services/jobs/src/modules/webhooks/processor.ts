import { createEvent } from '@hireflow/contracts';
import type { Database, Sql } from '@hireflow/db';
import { enqueueEvent, type Logger } from '@hireflow/messaging';
import { signals } from '@hireflow/telemetry';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { circuitOpenUntil, nextAttemptAt, outcomeOf, type RetrySchedule } from './retry.ts';
import {
  type EndpointAgents,
  failureReason,
  type SendOptions,
  type SendResult,
  sendWebhook,
} from './sender.ts';
import { webhookHeaders } from './signing.ts';
import { DeliveryRefused } from './ssrf.ts';
import {
  type ClaimedDelivery,
  type DeliveryRow,
  disableEndpoint,
  type EndpointRow,
  endpointFailed,
  recordAttempt,
  recordSuccess,
  tenantContact,
} from './store.ts';

const tracer = trace.getTracer('@hireflow/jobs');

export interface DeliveryProcessorOptions {
  orm: Database;
  send: SendOptions;
  /** Kept-alive connections per endpoint, each made to an address checked when it was made. */
  agents: EndpointAgents;
  schedule: RetrySchedule;
  log: Logger;
}

/**
 * One attempt of a claimed delivery (its slot is taken: the claim leased it),
 * in the trace of the event that made it. A disabled endpoint fails it
 * without an attempt. Recording the attempt gives the slot back. Returns when
 * the delivery's next attempt is due, if it has one.
 */
export async function deliverClaimed(
  options: DeliveryProcessorOptions,
  { delivery, endpoint }: ClaimedDelivery,
): Promise<Date | undefined> {
  const em = options.orm.em.fork();
  if (!endpoint.enabled) {
    await finishWithoutAttempt(em, delivery, 'endpoint disabled');
    return undefined;
  }
  const parent = delivery.traceparent
    ? propagation.extract(ROOT_CONTEXT, { traceparent: delivery.traceparent })
    : ROOT_CONTEXT;
  return context.with(parent, () => attempt(options, em, delivery, endpoint));
}

async function finishWithoutAttempt(em: Sql, delivery: DeliveryRow, reason: string): Promise<void> {
  await recordAttempt(em, {
    deliveryId: delivery.id,
    attemptedAt: new Date(),
    statusCode: null,
    latencyMs: 0,
    error: reason,
    responseBody: '',
    status: 'failed',
    nextAttemptAt: null,
  });
}

/** Sends once, records the attempt and its consequences; returns when to try again, if ever. */
async function attempt(
  options: DeliveryProcessorOptions,
  em: Sql,
  delivery: DeliveryRow,
  endpoint: EndpointRow,
): Promise<Date | undefined> {
  const attemptedAt = new Date();
  const secrets = [endpoint.secret];
  if (
    endpoint.previousSecret &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt > attemptedAt
  )
    secrets.push(endpoint.previousSecret);
  const headers = webhookHeaders(delivery.id, delivery.body, secrets, attemptedAt);
  const attemptNumber = delivery.attempts + 1;

  const { result, error } = await tracer.startActiveSpan(
    'webhook attempt',
    {
      kind: SpanKind.CLIENT,
      // Ids and counts only: no URL path, no secret, no payload.
      attributes: {
        'webhook.delivery_id': delivery.id,
        'webhook.endpoint_id': endpoint.id,
        'webhook.type': delivery.type,
        'webhook.attempt': attemptNumber,
        'server.address': hostOf(endpoint.url),
      },
    },
    async (span) => {
      try {
        // The attempt's traceparent goes along: a receiver can quote it, and the local one links the trace.
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        const traced = carrier.traceparent ? { ...headers, traceparent: carrier.traceparent } : headers;
        const sent = await sendWebhook(endpoint.url, traced, delivery.body, options.send, {
          pool: options.agents,
          endpointId: endpoint.id,
        });
        span.setAttribute('http.response.status_code', sent.statusCode);
        if (outcomeOf(sent.statusCode) !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR });
        return { result: sent as SendResult | undefined, error: undefined };
      } catch (caught) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: failureReason(caught) });
        return { result: undefined, error: caught };
      } finally {
        span.end();
      }
    },
  );

  const outcome = result
    ? outcomeOf(result.statusCode)
    : error instanceof DeliveryRefused
      ? 'refused'
      : 'failed';
  const latencyMs = result?.latencyMs ?? Math.round(Date.now() - attemptedAt.getTime());
  signals.webhook.publish({ outcome, latencyMs });

  const now = new Date();
  // A refusal is final: the address will not become allowed by waiting.
  const next =
    outcome === 'failed'
      ? nextAttemptAt(options.schedule, attemptNumber, delivery.createdAt, now)
      : undefined;
  if (outcome === 'delivered' && result) {
    await recordSuccess(
      em,
      {
        deliveryId: delivery.id,
        attemptedAt,
        statusCode: result.statusCode,
        latencyMs,
        responseBody: result.body,
      },
      endpoint.id,
    );
    return undefined;
  }
  const status = next ? 'pending' : 'failed';
  await em.transactional(async (tx) => {
    await recordAttempt(tx, {
      deliveryId: delivery.id,
      attemptedAt,
      statusCode: result?.statusCode ?? null,
      latencyMs,
      error: result ? null : failureReason(error),
      responseBody: result?.body ?? '',
      status,
      nextAttemptAt: next ?? null,
    });
    if (outcome === 'gone') {
      await disable(tx, endpoint, 'the endpoint answered 410 Gone', now, options.log);
      return;
    }
    const streak = await endpointFailed(tx, endpoint.id, now, (failures) => circuitOpenUntil(failures, now));
    if (streak && now.getTime() - streak.failingSince.getTime() >= options.schedule.windowMs) {
      await disable(tx, endpoint, 'the endpoint failed every delivery for three days', now, options.log);
    }
  });
  return status === 'pending' ? next : undefined;
}

/** Disables the endpoint and tells its tenant (webhook.endpoint.disabled.v1, once: only the call that disables). */
async function disable(
  em: Sql,
  endpoint: EndpointRow,
  reason: string,
  now: Date,
  log: Logger,
): Promise<void> {
  if (!(await disableEndpoint(em, endpoint.id, reason))) return;
  signals.webhook.publish({ outcome: 'endpoint-disabled' });
  log.warn({ endpointId: endpoint.id, tenantId: endpoint.tenantId, reason }, 'webhook endpoint disabled');
  const contactEmail = await tenantContact(em, endpoint.tenantId);
  if (!contactEmail) return;
  await enqueueEvent(
    em,
    createEvent(
      'webhook.endpoint.disabled.v1',
      {
        endpointId: endpoint.id,
        tenantId: endpoint.tenantId,
        contactEmail,
        host: hostOf(endpoint.url),
        reason,
        disabledAt: now.toISOString(),
      },
      { source: 'hireflow/jobs', subject: endpoint.id },
    ),
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
}
