import { describe, expect, it } from 'vitest';
import type { Span } from './model.ts';
import { createTraceStore, summarize } from './store.ts';

let next = 0;
const traceId = (n: number) => n.toString(16).padStart(32, '0');
function span(trace: number, overrides: Partial<Span> = {}): Span {
  next++;
  return {
    traceId: traceId(trace),
    spanId: next.toString(16).padStart(16, '0'),
    parentSpanId: undefined,
    name: `span ${next}`,
    kind: 'internal',
    startNanos: BigInt(trace) * 1_000_000n,
    endNanos: BigInt(trace) * 1_000_000n + 500n,
    attributes: [],
    events: [],
    links: [],
    status: { code: 'unset', message: '' },
    service: 'jobs',
    resource: [],
    scope: { name: '', version: '' },
    ...overrides,
  };
}

describe('the trace store', () => {
  it('groups spans by trace and lists traces newest (latest start) first', () => {
    const store = createTraceStore({ maxTraces: 10, maxSpansPerTrace: 10, maxSpans: 100 });
    store.add([span(2), span(1), span(3), span(2)]);
    expect(store.list().map((t) => t.traceId)).toEqual([traceId(3), traceId(2), traceId(1)]);
    expect(store.get(traceId(2))!.spans.size).toBe(2);
    expect(store.spanCount()).toBe(4);
  });

  it('evicts the trace that received spans least recently when over maxTraces', () => {
    const store = createTraceStore({ maxTraces: 2, maxSpansPerTrace: 10, maxSpans: 100 });
    store.add([span(1)]);
    store.add([span(2)]);
    store.add([span(1)]); // trace 1 is active again: trace 2 is now the oldest
    store.add([span(3)]);
    expect(store.get(traceId(2))).toBeUndefined();
    expect(store.list().map((t) => t.traceId)).toEqual([traceId(3), traceId(1)]);
    expect(store.spanCount()).toBe(3);
  });

  it('evicts single-span traces (background polling) before request traces, never one just written', () => {
    const store = createTraceStore({ maxTraces: 3, maxSpansPerTrace: 10, maxSpans: 100 });
    store.add([span(1), span(1)]);
    store.add([span(2)]);
    store.add([span(3), span(3)]);
    store.add([span(4)]); // over the bound: trace 2 goes, though trace 1 is older
    expect(store.list().map((t) => t.traceId)).toEqual([traceId(4), traceId(3), traceId(1)]);
    store.add([span(5)]); // the only single-span trace left is trace 4: it goes, not the new 5
    expect(store.list().map((t) => t.traceId)).toEqual([traceId(5), traceId(3), traceId(1)]);
    store.add([span(6), span(6)]); // trace 5 goes
    store.add([span(7), span(7)]); // no single-span trace left: the oldest, 1, goes
    expect(store.list().map((t) => t.traceId)).toEqual([traceId(7), traceId(6), traceId(3)]);
  });

  it('keeps at most maxSpansPerTrace spans of a trace and counts the rest as dropped', () => {
    const store = createTraceStore({ maxTraces: 10, maxSpansPerTrace: 3, maxSpans: 100 });
    store.add([span(1), span(1), span(1), span(1), span(1)]);
    expect(store.get(traceId(1))).toMatchObject({ droppedSpans: 2 });
    expect(store.get(traceId(1))!.spans.size).toBe(3);
  });

  it('evicts whole old traces to stay under maxSpans in all', () => {
    const store = createTraceStore({ maxTraces: 10, maxSpansPerTrace: 10, maxSpans: 4 });
    store.add([span(1), span(1)]);
    store.add([span(2), span(2)]);
    store.add([span(3), span(3)]);
    expect(store.list().map((t) => t.traceId)).toEqual([traceId(3), traceId(2)]);
    expect(store.spanCount()).toBe(4);
  });

  it('replaces a span sent twice (an exporter retry) instead of counting it twice', () => {
    const store = createTraceStore({ maxTraces: 10, maxSpansPerTrace: 10, maxSpans: 100 });
    const first = span(1);
    store.add([first]);
    store.add([{ ...first, name: 'again' }]);
    expect(store.spanCount()).toBe(1);
    expect([...store.get(traceId(1))!.spans.values()].map((s) => s.name)).toEqual(['again']);
  });

  it('summarizes a trace by its root: service, name, span count, duration, errors', () => {
    const store = createTraceStore({ maxTraces: 10, maxSpansPerTrace: 10, maxSpans: 100 });
    const root = span(5, { name: 'POST /v1/jobs', startNanos: 1000n, endNanos: 5000n });
    store.add([
      span(5, { parentSpanId: root.spanId, service: 'matching', startNanos: 2000n, endNanos: 9000n }),
      root,
      span(5, {
        parentSpanId: root.spanId,
        service: 'notifications',
        status: { code: 'error', message: 'x' },
      }),
    ]);
    expect(summarize(store.get(traceId(5))!)).toMatchObject({
      rootService: 'jobs',
      rootName: 'POST /v1/jobs',
      spanCount: 3,
      services: ['jobs', 'matching', 'notifications'],
      errorCount: 1,
      startNanos: 1000n,
    });
    expect(store.services()).toEqual(['jobs', 'matching', 'notifications']);
  });

  it('takes an orphan as the root when the real root has not arrived', () => {
    const store = createTraceStore({ maxTraces: 10, maxSpansPerTrace: 10, maxSpans: 100 });
    store.add([span(6, { name: 'late child', parentSpanId: 'ffffffffffffffff' })]);
    expect(summarize(store.get(traceId(6))!).rootName).toBe('late child');
  });
});
