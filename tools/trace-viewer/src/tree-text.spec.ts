import { describe, expect, it } from 'vitest';
import type { JaegerSpan, JaegerTrace } from './jaeger.ts';
import { formatMicros, spanTree } from './span-tree.ts';
import { renderTraceTree } from './tree-text.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const T = 1_764_000_000_000_000;

function span(
  id: string,
  name: string,
  process: string,
  offset: number,
  duration: number,
  parent?: string,
  error?: string,
): JaegerSpan {
  return {
    traceID: TRACE,
    spanID: id.padStart(16, '0'),
    operationName: name,
    references: parent ? [{ refType: 'CHILD_OF', traceID: TRACE, spanID: parent.padStart(16, '0') }] : [],
    startTime: T + offset,
    duration,
    tags: error
      ? [
          { key: 'otel.status_code', type: 'string', value: 'ERROR' },
          { key: 'otel.status_description', type: 'string', value: error },
          { key: 'error', type: 'bool', value: true },
        ]
      : [],
    logs: [],
    processID: process,
    warnings: null,
  };
}

const processes = {
  p1: { serviceName: 'jobs', tags: [] },
  p2: { serviceName: 'matching', tags: [] },
  p3: { serviceName: 'notifications', tags: [] },
};

// Spans out of order, as a query API may return them.
const trace: JaegerTrace = {
  traceID: TRACE,
  spans: [
    span('5', 'smtp send', 'p3', 70_000, 15_000, '3', 'connect ECONNREFUSED'),
    span('1', 'POST /v1/jobs', 'p1', 0, 40_000),
    span('3', 'job-events process', 'p2', 60_000, 30_000, '1'),
    span('2', 'INSERT job', 'p1', 2_000, 3_500, '1'),
    span('4', 'score', 'p2', 61_000, 3_000, '3'),
    span('6', 'late', 'p2', 95_000, 500, 'abc'),
  ],
  processes,
  warnings: ['2 spans dropped'],
};

describe('renderTraceTree', () => {
  it('prints the trace as an indented tree with offsets, durations and error marks', () => {
    expect(renderTraceTree(trace, { color: false })).toBe(
      [
        `trace ${TRACE}`,
        'jobs: POST /v1/jobs · 6 spans · 3 services (jobs, matching, notifications) · 95.5 ms · 1 error',
        '',
        '    offset    duration',
        '     +0 ms     40.0 ms  jobs  POST /v1/jobs',
        '  +2.00 ms     3.50 ms  ├─ jobs  INSERT job',
        '  +60.0 ms     30.0 ms  └─ matching  job-events process',
        '  +61.0 ms     3.00 ms     ├─ matching  score',
        '  +70.0 ms     15.0 ms     └─ ✗ notifications  smtp send  (connect ECONNREFUSED)',
        '  +95.0 ms      500 µs  matching  late  (parent not in trace)',
        'warning: 2 spans dropped',
        '',
      ].join('\n'),
    );
  });

  it('draws the guide of an ancestor that has later siblings', () => {
    const wide: JaegerTrace = {
      ...trace,
      spans: [
        span('1', 'root', 'p1', 0, 100),
        span('2', 'a', 'p1', 1, 10, '1'),
        span('3', 'a.1', 'p1', 2, 5, '2'),
        span('4', 'b', 'p1', 20, 10, '1'),
      ],
      warnings: null,
    };
    const lines = renderTraceTree(wide, { color: false }).split('\n');
    expect(lines.slice(4, 8).map((l) => l.slice(24))).toEqual([
      'jobs  root',
      '├─ jobs  a',
      '│  └─ jobs  a.1',
      '└─ jobs  b',
    ]);
  });

  it('colours services and errors only when asked', () => {
    expect(renderTraceTree(trace, { color: true })).toContain('\u001b[31m✗\u001b[0m');
    expect(renderTraceTree(trace, { color: false })).not.toContain('\u001b[');
  });
});

describe('spanTree', () => {
  it('lists every span once even when parents form a cycle', () => {
    const cyclic: JaegerTrace = {
      ...trace,
      spans: [
        span('1', 'a', 'p1', 0, 10, '2'),
        span('2', 'b', 'p1', 5, 10, '1'),
        span('3', 'c', 'p1', 7, 1, '3'),
      ],
    };
    expect(
      spanTree(cyclic)
        .rows.map((r) => r.span.operationName)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
  });
});

describe('formatMicros', () => {
  it('picks a unit a person reads at a glance', () => {
    expect([0, 850, 999.7, 1_234, 12_345, 999_999, 1_500_000, 125_000_000].map(formatMicros)).toEqual([
      '0 ms',
      '850 µs',
      '1.00 ms',
      '1.23 ms',
      '12.3 ms',
      '1.00 s',
      '1.50 s',
      '2 min 5 s',
    ]);
  });
});
