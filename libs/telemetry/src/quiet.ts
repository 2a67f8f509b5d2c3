import { type Context, context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

// Quiet when idle (docs/tracing.md): a poller's empty round is no story, so
// it leaves no trace; periodic housekeeping, which is work of its own, gets a
// root span that says what it is.

const tracer = trace.getTracer('@hireflow/telemetry');

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

/** The span name of a periodic task: `housekeeping <name>`. */
export function housekeepingSpanName(task: string): string {
  return `housekeeping ${task}`;
}

/** Runs a periodic task as the root of a trace of its own, named `housekeeping <name>`. */
export function inHousekeepingSpan<T>(task: string, work: () => Promise<T>): Promise<T> {
  const options = { kind: SpanKind.INTERNAL, attributes: { 'hireflow.housekeeping.task': task } };
  return tracer.startActiveSpan(housekeepingSpanName(task), options, ROOT_CONTEXT, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}
