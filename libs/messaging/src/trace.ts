import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
} from '@opentelemetry/api';
import { DeferError } from './retry-later.ts';

/** The W3C trace context as carried on an outbox row and in message attributes. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

export const TRACE_FIELDS = ['traceparent', 'tracestate', 'baggage'] as const;

/** The active context's trace headers (empty outside a trace or without a propagator). */
export function injectTrace(ctx: Context = context.active()): TraceCarrier {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  const out: TraceCarrier = {};
  for (const field of TRACE_FIELDS) if (carrier[field]) out[field] = carrier[field];
  return out;
}

export function extractTrace(carrier: TraceCarrier, base: Context = context.active()): Context {
  return propagation.extract(base, carrier);
}

/** Ids of the event's `data` worth a span attribute: never a name, an email or a text. */
const ID_FIELDS = {
  tenantId: 'hireflow.tenant_id',
  jobId: 'hireflow.posting_id',
  candidateId: 'hireflow.candidate_id',
  matchId: 'hireflow.match_id',
  uploadId: 'hireflow.upload_id',
  keyId: 'hireflow.api_key_id',
} as const;

interface EventLike {
  id: string;
  type: string;
  source?: string;
  subject?: string | undefined;
  data?: unknown;
}

/**
 * A CloudEvent's span attributes (OpenTelemetry's `cloudevents.*`) and the
 * ids it carries (tenant, posting, candidate, upload…) so a trace can be found
 * and read by them. Ids only: personal data stays out of spans.
 */
export function eventSpanAttributes(event: EventLike): Record<string, string> {
  const attributes: Record<string, string> = {
    'cloudevents.event_id': event.id,
    'cloudevents.event_type': event.type,
  };
  if (event.source) attributes['cloudevents.event_source'] = event.source;
  if (event.subject) attributes['cloudevents.event_subject'] = event.subject;
  const data = (event.data ?? {}) as Record<string, unknown>;
  for (const [field, attribute] of Object.entries(ID_FIELDS)) {
    const value = data[field];
    if (typeof value === 'string') attributes[attribute] = value;
  }
  return attributes;
}

/** The consumer's `process <queue>` span (OpenTelemetry messaging conventions). */
export function processSpanOptions(
  queue: string,
  messageId: string,
  deliveryCount: number,
  event: EventLike,
): SpanOptions & { name: string } {
  return {
    name: `process ${queue}`,
    kind: SpanKind.CONSUMER,
    attributes: {
      'messaging.system': 'aws_sqs',
      'messaging.destination.name': queue,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.message.id': messageId,
      'messaging.message.delivery_count': deliveryCount,
      ...eventSpanAttributes(event),
    },
  };
}

/** A handler's failure on its span; waiting for an event not yet arrived is the design, not an error. */
export function recordHandlerFailure(span: Span, error: unknown): void {
  if (error instanceof DeferError) {
    span.addEvent('deferred', {
      'hireflow.defer.reason': error.message,
      'hireflow.defer.delay_ms': error.delayMs,
    });
    return;
  }
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
}
