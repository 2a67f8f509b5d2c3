import { currentTraceId } from '@hireflow/telemetry';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { testTopology } from '@hireflow/testing';
import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueEvent, OutboxRelay, SnsPublisher, SqsConsumer } from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobPosted, smallTopology, useAws, useOutboxDatabase } from './helpers.ts';

const env = useAws();
const store = useOutboxDatabase('trace');
let tracing: ReturnType<typeof startTestTracing>;

beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

describe('trace propagation', () => {
  it('runs the handler in the trace of the request that wrote the outbox row (outbox → SNS → SQS)', async () => {
    const topo = await testTopology(env.aws, 'trace', smallTopology());
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    let handlerTraceId: string | undefined;
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      onMessage: spy.observer,
      handlers: {
        'job.posted.v1': () => {
          handlerTraceId = currentTraceId();
        },
      },
    });
    const relay = new OutboxRelay({
      orm: store.orm,
      publisher: new SnsPublisher(env.aws.sns),
      topicArns: { 'jobs-events': topo.topics['jobs-events']!.arn },
    });
    await Promise.all([consumer.start(), relay.start()]);
    const event = jobPosted();
    try {
      // The "request": a server span whose context the outbox row keeps.
      const requestTraceId = await trace
        .getTracer('test')
        .startActiveSpan('POST /v1/jobs', { kind: SpanKind.SERVER }, async (span) => {
          await store.em().transactional(async (tx) => {
            await enqueueEvent(tx, event);
          });
          span.end();
          return span.spanContext().traceId;
        });
      await spy.waitForHandled(event.id, 20_000);

      expect(handlerTraceId).toBe(requestTraceId);
      const spans = tracing.exporter.getFinishedSpans();
      const request = spans.find((s) => s.name === 'POST /v1/jobs')!;
      const publish = spans.find((s) => s.name === `publish ${topo.topics['jobs-events']!.name}`)!;
      const process = spans.find((s) => s.name === `process ${queue.name}`)!;
      expect(publish.spanContext().traceId).toBe(requestTraceId);
      expect(publish.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(process.spanContext().traceId).toBe(requestTraceId);
      // Parent/child, not a link: Jaeger shows one trace.
      expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
      expect(process.kind).toBe(SpanKind.CONSUMER);
    } finally {
      await Promise.all([relay.close(), consumer.close()]);
    }
  });
});
