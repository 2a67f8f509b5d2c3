import { startTestTracing } from '@hireflow/telemetry/testing';
import { trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { untraced } from './quiet.ts';

it('untraced records nothing the work starts, even inside a trace, and leaves the caller’s trace alone', async () => {
  const tracing = startTestTracing();
  try {
    const tracer = trace.getTracer('spec');
    await tracer.startActiveSpan('request', async (request) => {
      await untraced(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        tracer.startSpan('poll').end();
        expect(trace.getActiveSpan()).toBeUndefined();
      });
      tracer.startSpan('after').end();
      request.end();
    });
    const spans = new Map(tracing.exporter.getFinishedSpans().map((span) => [span.name, span]));
    expect([...spans.keys()].sort()).toEqual(['after', 'request']);
    expect(spans.get('after')?.parentSpanContext?.spanId).toBe(spans.get('request')?.spanContext().spanId);
  } finally {
    await tracing.stop();
  }
});
