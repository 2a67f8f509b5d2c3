import { createEvent } from '@hireflow/contracts';
import type { EntityManager, MikroORM } from '@hireflow/db';
import { enqueueEvent, type Logger } from '@hireflow/messaging';
import type { ConcurrencySlots } from '@hireflow/runtime';
import { signals } from '@hireflow/telemetry';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { DelayedError, type Job } from 'bullmq';
import type { DeliveryTask } from './deliveries.ts';
import { circuitOpenUntil, nextAttemptAt, outcomeOf, type RetrySchedule } from './retry.ts';
import { failureReason, type SendOptions, type SendResult, sendWebhook } from './sender.ts';
import { webhookHeaders } from './signing.ts';
import { DeliveryRefused } from './ssrf.ts';
import {
  type DeliveryRow,
  deliveryById,
  disableEndpoint,
  type EndpointRow,
  endpointById,
  endpointFailed,
  recordAttempt,
  recordSuccess,
  tenantContact,
} from './store.ts';

const tracer = trace.getTracer('@hireflow/jobs');

export interface DeliveryProcessorOptions {
  orm: MikroORM;
  send: SendOptions;
  schedule: RetrySchedule;
  /** Per-endpoint slots across every worker (Redis), `endpointConcurrency` of them per endpoint. */
  slots: ConcurrencySlots;
  /** One slot per endpoint: the probe of an endpoint whose circuit opened. */
  probeSlots: ConcurrencySlots;
  log: Logger;
  /** How long a task that found its endpoint's slots taken waits before it looks again. */
  busyWaitMs?: number;
}

/**
 * One attempt of one delivery per run. The delivery's row decides: a
 * delivery no longer pending is done; a disabled endpoint fails it; an open
 * circuit or an endpoint at its concurrency puts the task back without an
 * attempt. After a failed attempt the task waits for its next one as a
 * delayed job (BullMQ's moveToDelayed: the wait spends none of the task's
 * own attempts, which are for errors of this code, a database away).
 */
export function deliveryProcessor(options: DeliveryProcessorOptions) {
  const busyWaitMs = options.busyWaitMs ?? 250;
  return async (job: Job<DeliveryTask>, token?: string): Promise<string> => {
    const em = options.orm.em.fork();
    const delivery = await deliveryById(em, job.data.deliveryId);
    if (delivery?.status !== 'pending') return 'done';
    const endpoint = await endpointById(em, delivery.endpointId);
    if (!endpoint) return 'done';
    if (!endpoint.enabled) {
      await finishWithoutAttempt(em, delivery, 'endpoint disabled');
      return 'failed';
    }
    const now = Date.now();
    if (endpoint.circuitOpenUntil && endpoint.circuitOpenUntil.getTime() > now) {
      return later(job, token, endpoint.circuitOpenUntil.getTime() + Math.floor(Math.random() * 1000));
    }
    const slotId = `${job.id}:${now}`;
    const probing = endpoint.consecutiveFailures > 0 && endpoint.circuitOpenUntil !== null;
    const slots = probing ? options.probeSlots : options.slots;
    if (!(await slots.acquire(endpoint.id, slotId))) {
      return later(job, token, now + busyWaitMs + Math.floor(Math.random() * busyWaitMs));
    }
    let next: Date | undefined;
    try {
      next = await attempt(options, em, delivery, endpoint);
    } finally {
      await slots.release(endpoint.id, slotId);
    }
    if (next) return later(job, token, next.getTime());
    return 'attempted';
  };
}

/** Moves the task to delayed until `at` (not an attempt of the task's own). */
async function later(job: Job<DeliveryTask>, token: string | undefined, at: number): Promise<never> {
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

async function finishWithoutAttempt(em: EntityManager, delivery: DeliveryRow, reason: string): Promise<void> {
  await em.transactional((tx) =>
    recordAttempt(tx, {
      deliveryId: delivery.id,
      attemptedAt: new Date(),
      statusCode: null,
      latencyMs: 0,
      error: reason,
      responseBody: '',
      status: 'failed',
      nextAttemptAt: null,
    }),
  );
}

/** Sends once, records the attempt and its consequences; returns when to try again, if ever. */
async function attempt(
  options: DeliveryProcessorOptions,
  em: EntityManager,
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
        const sent = await sendWebhook(endpoint.url, traced, delivery.body, options.send);
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
  em: EntityManager,
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
  enqueueEvent(
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
