import { describe, expect, it } from 'vitest';
import { toJaegerTrace, toTag } from './jaeger.ts';
import type { Span } from './model.ts';
import { createTraceStore } from './store.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const span = (id: string, service: string, instance: string): Span => ({
  traceId: TRACE,
  spanId: id.padStart(16, '0'),
  parentSpanId: undefined,
  name: 'op',
  kind: 'unspecified',
  startNanos: 1_000_000n,
  endNanos: 999n, // ends before it starts: a clock skew, shown as 0
  attributes: [],
  events: [],
  links: [],
  status: { code: 'ok', message: '' },
  service,
  resource: [
    { key: 'service.name', value: { type: 'string', value: service } },
    { key: 'service.instance.id', value: { type: 'string', value: instance } },
  ],
  scope: { name: '', version: '' },
});

describe('toJaegerTrace', () => {
  it('gives each distinct resource a process, and says when spans were dropped', () => {
    const store = createTraceStore({ maxTraces: 1, maxSpansPerTrace: 3, maxSpans: 10 });
    store.add([
      span('1', 'jobs', 'a'),
      span('2', 'jobs', 'a'),
      span('3', 'jobs', 'b'),
      span('4', 'jobs', 'c'),
    ]);
    const trace = toJaegerTrace(store.get(TRACE)!);
    expect(trace.processes).toEqual({
      p1: { serviceName: 'jobs', tags: [{ key: 'service.instance.id', type: 'string', value: 'a' }] },
      p2: { serviceName: 'jobs', tags: [{ key: 'service.instance.id', type: 'string', value: 'b' }] },
    });
    expect(trace.spans.map((s) => s.processID)).toEqual(['p1', 'p1', 'p2']);
    expect(trace.spans[0]!.duration).toBe(0);
    expect(trace.spans[0]!.tags).toEqual([{ key: 'otel.status_code', type: 'string', value: 'OK' }]);
    expect(trace.warnings).toEqual([
      "1 spans dropped: the trace is over the viewer's limit of spans per trace",
    ]);
  });
});

describe('toTag', () => {
  it('keeps Jaeger’s types and writes arrays and maps as JSON text', () => {
    expect(toTag({ key: 'b', value: { type: 'bytes', value: 'AQI=' } })).toEqual({
      key: 'b',
      type: 'binary',
      value: 'AQI=',
    });
    expect(
      toTag({
        key: 'm',
        value: {
          type: 'kvlist',
          value: [
            { key: 'x', value: { type: 'array', value: [{ type: 'int', value: 1 }, { type: 'empty' }] } },
            { key: 'y', value: { type: 'bool', value: true } },
          ],
        },
      }),
    ).toEqual({ key: 'm', type: 'string', value: '{"x":[1,null],"y":true}' });
  });
});
