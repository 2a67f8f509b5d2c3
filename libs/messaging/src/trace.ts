import { type Context, context, propagation } from '@opentelemetry/api';

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
