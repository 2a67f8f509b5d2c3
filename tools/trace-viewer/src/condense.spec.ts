import { describe, expect, it } from 'vitest';
import { condenseTrace, isStoryStep } from './condense.ts';
import type { JaegerSpan, JaegerTag, JaegerTrace } from './jaeger.ts';
import { spanTree } from './span-tree.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

function span(
  id: string,
  name: string,
  parent: string | undefined,
  tags: Record<string, string> = {},
): JaegerSpan {
  return {
    traceID: TRACE,
    spanID: id.padStart(16, '0'),
    operationName: name,
    references: parent ? [{ refType: 'CHILD_OF', traceID: TRACE, spanID: parent.padStart(16, '0') }] : [],
    startTime: 1_764_000_000_000_000 + Number.parseInt(id, 16),
    duration: 10,
    tags: Object.entries(tags).map(([key, value]): JaegerTag => ({ key, type: 'string', value })),
    logs: [],
    processID: 'p1',
    warnings: null,
  };
}

const own = (kind: string, extra: Record<string, string> = {}) => ({
  'otel.scope.name': '@hireflow/messaging',
  'span.kind': kind,
  ...extra,
});

const trace: JaegerTrace = {
  traceID: TRACE,
  spans: [
    span('1', 'POST /v1/jobs', undefined, { 'span.kind': 'server' }),
    span('2', 'request', '1', { 'otel.scope.name': '@fastify/otel', 'span.kind': 'internal' }),
    span('3', 'handler - postingRoutes', '2', { 'otel.scope.name': '@fastify/otel' }),
    span('4', 'pg.query:INSERT', '3', { 'otel.scope.name': '@opentelemetry/instrumentation-pg' }),
    span('5', 'publish jobs-events', '3', own('producer')),
    span('6', 'process matching-inbox', '5', own('consumer')),
    span('7', 'add match.posting', '6', own('producer', { 'bullmq.queue.operation': 'add' })),
    span('8', 'complete match', '7', own('internal', { 'bullmq.queue.operation': 'complete' })),
    span('9', 'match posting', '8', { 'otel.scope.name': '@hireflow/matching', 'span.kind': 'internal' }),
    span('a', 'late', 'ffff', own('consumer')),
  ],
  processes: { p1: { serviceName: 'jobs', tags: [] } },
  warnings: null,
};

describe('isStoryStep', () => {
  it('keeps served requests and Hireflow’s own spans, drops SQL, framework and BullMQ bookkeeping', () => {
    expect(trace.spans.filter(isStoryStep).map((s) => s.operationName)).toEqual([
      'POST /v1/jobs',
      'publish jobs-events',
      'process matching-inbox',
      'add match.posting',
      'match posting',
      'late',
    ]);
  });
});

describe('condenseTrace', () => {
  it('hangs each kept span under its nearest kept ancestor and keeps orphans orphans', () => {
    const condensed = spanTree(condenseTrace(trace, isStoryStep));
    expect(condensed.rows.map((r) => [r.depth, r.span.operationName, r.orphan])).toEqual([
      [0, 'POST /v1/jobs', false],
      [1, 'publish jobs-events', false],
      [2, 'process matching-inbox', false],
      [3, 'add match.posting', false],
      [4, 'match posting', false],
      [0, 'late', true],
    ]);
  });

  it('leaves the trace it was given as it was', () => {
    const before = JSON.stringify(trace);
    condenseTrace(trace, () => false);
    expect(JSON.stringify(trace)).toBe(before);
  });
});
