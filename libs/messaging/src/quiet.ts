import { type Context, context, ROOT_CONTEXT } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

// Quiet when idle (docs/tracing.md): a poller's empty round is no story, so it
// leaves no trace. The one home of these helpers: the services import them from
// here (the packed package needs only the OpenTelemetry API and core, and the
// contracts stay free of OpenTelemetry, docs/decisions.md); periodic
// housekeeping, which is work of its own, is @hireflow/telemetry's
// `inHousekeepingSpan`.

/**
 * Runs `work` outside any trace, with tracing suppressed: nothing it starts
 * (SQL, Redis, AWS calls, timers and sockets it creates) records a span. For
 * pollers (an SQS long poll, a relay's claim loop, a metrics sampler) and
 * connection set-up that belongs to no request.
 */
export function untraced<T>(work: () => T): T {
  return context.with(untracedContext(), work);
}

/** The context `untraced` runs in: no parent, tracing suppressed. */
export function untracedContext(): Context {
  return suppressTracing(ROOT_CONTEXT);
}

/** `context` (its span stays the active one) with every span below it suppressed. */
export function withoutChildSpans(context: Context): Context {
  return suppressTracing(context);
}
