import { startTestTracing } from '@hireflow/telemetry/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untraced } from './quiet.ts';

let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

const tracer = trace.getTracer('spec');
const named = (name: string) => tracing.exporter.getFinishedSpans().filter((s) => s.name === name);

describe('untraced', () => {
  it('records nothing the work starts, even inside a trace, and leaves the caller’s trace alone', async () => {
    await tracer.startActiveSpan('request', async (request) => {
      await untraced(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        tracer.startSpan('poll').end();
        expect(trace.getActiveSpan()).toBeUndefined();
      });
      tracer.startSpan('after').end();
      request.end();
    });
    expect(named('poll')).toEqual([]);
    expect(named('after')[0]?.parentSpanContext?.spanId).toBe(named('request')[0]!.spanContext().spanId);
  });
});
