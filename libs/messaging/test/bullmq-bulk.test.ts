import { startTestTracing } from '@hireflow/telemetry/testing';
import { uniqueName, waitFor } from '@hireflow/testing';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskIdFor } from '../src/index.ts';
import { createTaskQueue, createTaskWorker } from '../src/tasks.ts';

const REDIS = 'redis://127.0.0.1:6379';
let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

describe('TaskQueue.addBulk', () => {
  it("adds the jobs of several callers at once, each job in its own caller's trace", async () => {
    const name = uniqueName('bulk');
    const prefix = `hftest-${uniqueName('bull')}`;
    const queue = createTaskQueue<{ n: number }>({ name, connection: REDIS, prefix });
    const seen = new Map<number, string | undefined>();
    const worker = createTaskWorker<{ n: number }>({
      name,
      prefix,
      connection: REDIS,
      processor: async (job) => {
        seen.set(job.data.n, trace.getActiveSpan()?.spanContext().traceId);
      },
    });
    try {
      // Three "handlers", each in a span of its own trace, whose jobs go to Redis in one bulk.
      const tracer = trace.getTracer('test');
      const callers = [1, 2, 3].map((n) => {
        const span = tracer.startSpan(`handler ${n}`, { kind: SpanKind.CONSUMER });
        return { n, span, ctx: trace.setSpan(context.active(), span) };
      });
      const ids = await queue.addBulk(
        callers.map(({ n, ctx }) => ({ name: 'send', data: { n }, intentKey: `bulk:${n}`, context: ctx })),
      );
      expect(ids).toEqual([1, 2, 3].map((n) => taskIdFor(`bulk:${n}`)));
      // A key added again (in bulk or alone) is a no-op, as with add.
      await queue.addBulk([{ name: 'send', data: { n: 1 }, intentKey: 'bulk:1', context: callers[0]!.ctx }]);
      for (const { span } of callers) span.end();
      await waitFor(() => seen.size === 3, { timeoutMs: 10_000 });
      expect(await queue.queue.getJobCounts('completed')).toEqual({ completed: 3 });

      // A job's process span ends after its processor returns: wait until all three are exported.
      const finished = () => tracing.exporter.getFinishedSpans();
      await waitFor(() => finished().filter((s) => s.name === `process ${name}`).length >= 3, {
        timeoutMs: 10_000,
        message: 'three process spans ended',
      });
      const spans = finished();
      for (const { n, span } of callers) {
        const traceId = span.spanContext().traceId;
        expect(seen.get(n)).toBe(traceId);
        const adds = spans.filter(
          (s) => s.name === `add ${name}` && s.parentSpanContext?.spanId === span.spanContext().spanId,
        );
        expect(adds.length).toBeGreaterThanOrEqual(1);
        const processing = spans.filter(
          (s) => s.name === `process ${name}` && s.spanContext().traceId === traceId,
        );
        expect(processing).toHaveLength(1);
        // The job's processing is a child of its own add span, in its caller's trace.
        expect(adds.map((a) => a.spanContext().spanId)).toContain(processing[0]!.parentSpanContext?.spanId);
        expect(adds[0]!.kind).toBe(SpanKind.PRODUCER);
        expect(adds[0]!.attributes['messaging.message.id']).toBe(taskIdFor(`bulk:${n}`));
      }
      // The bulk itself records no span of its own.
      expect(spans.some((s) => s.name.startsWith('addBulk'))).toBe(false);
    } finally {
      await worker.close();
      await queue.queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
