import { startTestTracing } from '@hireflow/telemetry/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeferError } from './retry-later.ts';
import { eventSpanAttributes, recordHandlerFailure } from './trace.ts';

let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

describe('eventSpanAttributes', () => {
  it('names the event and the ids it carries, never a name, an address or a text', () => {
    const attributes = eventSpanAttributes({
      id: 'e1',
      type: 'candidate.registered.v1',
      source: 'hireflow/jobs',
      subject: 'c1',
      data: {
        candidateId: 'c1',
        tenantId: 't1',
        name: 'Ada Lovelace',
        email: 'ada@example.test',
        headline: 'Analyst',
        skills: ['maths'],
      },
    });
    expect(attributes).toEqual({
      'cloudevents.event_id': 'e1',
      'cloudevents.event_type': 'candidate.registered.v1',
      'cloudevents.event_source': 'hireflow/jobs',
      'cloudevents.event_subject': 'c1',
      'hireflow.candidate_id': 'c1',
      'hireflow.tenant_id': 't1',
    });
  });
});

describe('recordHandlerFailure', () => {
  const outcome = (error: unknown) => {
    const span = trace.getTracer('spec').startSpan('process inbox');
    recordHandlerFailure(span, error);
    span.end();
    return tracing.exporter.getFinishedSpans().at(-1)!;
  };

  it('marks a failed handler as an error', () => {
    const span = outcome(new Error('db away'));
    expect(span.status).toMatchObject({ code: 2, message: 'db away' });
    expect(span.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('records waiting for an event not yet arrived as an event, not an error', () => {
    const span = outcome(new DeferError(5000, 'waiting for candidate c1'));
    expect(span.status.code).toBe(0);
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      ['deferred', { 'hireflow.defer.reason': 'waiting for candidate c1', 'hireflow.defer.delay_ms': 5000 }],
    ]);
  });
});
