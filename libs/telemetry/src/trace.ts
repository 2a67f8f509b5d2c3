import { trace } from '@opentelemetry/api';

/** The active span's trace id, for `202` responses and logs; undefined outside a trace. */
export function currentTraceId(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  if (!ctx || !trace.isSpanContextValid(ctx)) return undefined;
  return ctx.traceId;
}
