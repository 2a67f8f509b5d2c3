import { type Context, context, ROOT_CONTEXT } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

// Quiet when idle (docs/tracing.md): a poll that finds nothing leaves no
// trace. The same two calls as @hireflow/telemetry's quiet.ts, kept here so
// the packed package needs the OpenTelemetry API and core, not the SDK the
// telemetry package preloads.

/** Runs `work` outside any trace, with tracing suppressed (pollers, connection set-up). */
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
