import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

// Quiet when idle (docs/tracing.md): periodic housekeeping, which is work of
// its own, gets a root span that says what it is. A poller's empty round is no
// story and leaves no trace: `untraced` is @hireflow/messaging's.

const tracer = trace.getTracer('@hireflow/telemetry');

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
