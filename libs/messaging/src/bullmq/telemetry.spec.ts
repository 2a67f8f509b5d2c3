import { startTestTracing } from '@hireflow/telemetry/testing';
import { type context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietTelemetry } from './telemetry.ts';

let tracing: ReturnType<typeof startTestTracing>;
let telemetry: ReturnType<typeof quietTelemetry>;
beforeAll(() => {
  tracing = startTestTracing();
  telemetry = quietTelemetry('spec');
});
afterAll(() => tracing.stop());

const INTERNAL = 0;
const PRODUCER = 3;
const CONSUMER = 4;
const spans = () => tracing.exporter.getFinishedSpans();

/** What BullMQ does with a telemetry: a span, its context active while the operation runs. */
function operation(name: string, kind: number, work: () => void, parent?: ReturnType<typeof context.active>) {
  const span = telemetry.tracer.startSpan(name, { kind }, parent);
  span.setAttributes({ 'bullmq.queue.name': 'email', 'bullmq.job.id': '42' });
  telemetry.contextManager.with(span.setSpanOnContext(telemetry.contextManager.active()), work);
  span.end();
}

describe('quietTelemetry (BullMQ)', () => {
  it('records no background operation outside a trace, nor anything it runs', () => {
    tracing.exporter.reset();
    operation('moveStalledJobsToWait email', INTERNAL, () =>
      trace.getTracer('redis').startSpan('evalsha').end(),
    );
    operation('getNextJob email', INTERNAL, () => undefined);
    expect(spans()).toEqual([]);
    expect(telemetry.contextManager.root?.()).toBeDefined();
  });

  it('keeps operations inside a trace, with messaging attributes', () => {
    tracing.exporter.reset();
    trace.getTracer('spec').startActiveSpan('POST /v1/candidates', (request) => {
      operation('add email.welcome', PRODUCER, () => undefined);
      request.end();
    });
    const add = spans().find((s) => s.name === 'add email.welcome');
    expect(add?.parentSpanContext?.spanId).toBe(
      spans()
        .find((s) => s.name === 'POST /v1/candidates')!
        .spanContext().spanId,
    );
    expect(add?.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'add',
      'messaging.destination.name': 'email',
      'messaging.message.id': '42',
      'bullmq.job.id': '42',
    });
  });

  it('records no Redis command under an add, and the job still carries the add’s context', () => {
    tracing.exporter.reset();
    let metadata = '';
    trace.getTracer('spec').startActiveSpan('process inbox', (handler) => {
      const add = telemetry.tracer.startSpan('add email.match', { kind: PRODUCER });
      const inside = add.setSpanOnContext(telemetry.contextManager.active());
      telemetry.contextManager.with(inside, () => trace.getTracer('redis').startSpan('evalsha').end());
      metadata = telemetry.contextManager.getMetadata(inside);
      add.end();
      handler.end();
    });
    const add = spans().find((s) => s.name === 'add email.match')!;
    expect(spans().map((s) => s.name)).not.toContain('evalsha');
    expect(JSON.parse(metadata).traceparent).toBe(
      `00-${add.spanContext().traceId}-${add.spanContext().spanId}-01`,
    );
  });

  it('records the processing of a job even when it was added outside any trace', () => {
    tracing.exporter.reset();
    operation('process email', CONSUMER, () => undefined);
    expect(spans().map((s) => [s.name, s.attributes['messaging.operation.type']])).toEqual([
      ['process email', 'process'],
    ]);
  });
});
