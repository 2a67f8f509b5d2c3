import { context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inHousekeepingSpan } from './quiet.ts';
import { startTestTracing } from './testing.ts';

let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

const tracer = trace.getTracer('spec');
const named = (name: string) => tracing.exporter.getFinishedSpans().filter((s) => s.name === name);

describe('inHousekeepingSpan', () => {
  it('runs a task as the root of its own trace, named after it, its work as children', async () => {
    await tracer.startActiveSpan('unrelated', async (unrelated) => {
      // A timer set up inside some request must not make housekeeping part of it.
      await inHousekeepingSpan('outbox-prune', async () => tracer.startSpan('DELETE outbox').end());
      unrelated.end();
    });
    const [root] = named('housekeeping outbox-prune');
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.attributes['hireflow.housekeeping.task']).toBe('outbox-prune');
    expect(named('DELETE outbox')[0]?.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
  });

  it('marks a failed run and passes its error on', async () => {
    await expect(
      inHousekeepingSpan('sweep', async () => {
        throw new Error('db away');
      }),
    ).rejects.toThrow('db away');
    const [span] = named('housekeeping sweep');
    expect(span?.status).toMatchObject({ code: 2, message: 'db away' });
    expect(context.active()).toBeDefined();
  });
});
