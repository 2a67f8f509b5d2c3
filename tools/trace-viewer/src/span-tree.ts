import type { JaegerSpan, JaegerTag, JaegerTrace } from './jaeger.ts';

export interface TreeRow {
  span: JaegerSpan;
  service: string;
  depth: number;
  /** Microseconds from the start of the trace. */
  offset: number;
  error: boolean;
  /** The status description of an error span, if it has one. */
  errorMessage: string | undefined;
  /** Its parent is named but not in the trace (not received yet, or dropped). */
  orphan: boolean;
  /** Last among its siblings. */
  last: boolean;
  /** For each ancestor level above this row: whether a later sibling follows at that level. */
  openLevels: boolean[];
}

export interface SpanTree {
  rows: TreeRow[];
  /** Unix microseconds of the earliest span. */
  start: number;
  /** Microseconds from the earliest start to the latest end. */
  duration: number;
  services: string[];
}

/**
 * Orders a trace's spans depth first, children by start time, as a waterfall
 * and `pnpm trace` draw them. Every span appears once: orphans become roots,
 * and spans caught in a parent cycle are broken out as roots too.
 */
export function spanTree(trace: JaegerTrace): SpanTree {
  const byId = new Map(trace.spans.map((s) => [s.spanID, s]));
  const children = new Map<string, JaegerSpan[]>();
  const roots: JaegerSpan[] = [];
  for (const span of trace.spans) {
    const parent = parentOf(span);
    if (parent && byId.has(parent) && parent !== span.spanID) {
      const list = children.get(parent) ?? [];
      list.push(span);
      children.set(parent, list);
    } else roots.push(span);
  }
  const byStart = (a: JaegerSpan, b: JaegerSpan) => a.startTime - b.startTime;
  for (const list of children.values()) list.sort(byStart);
  roots.sort(byStart);

  const start = Math.min(...trace.spans.map((s) => s.startTime));
  const end = Math.max(...trace.spans.map((s) => s.startTime + s.duration));
  const rows: TreeRow[] = [];
  const seen = new Set<string>();
  const visit = (span: JaegerSpan, depth: number, last: boolean, openLevels: boolean[]) => {
    if (seen.has(span.spanID)) return;
    seen.add(span.spanID);
    const parent = parentOf(span);
    const status = tag(span.tags, 'otel.status_description');
    rows.push({
      span,
      service: trace.processes[span.processID]?.serviceName ?? span.processID,
      depth,
      offset: span.startTime - start,
      error: isError(span),
      errorMessage: typeof status === 'string' && status !== '' ? status : undefined,
      orphan: parent !== undefined && !byId.has(parent),
      last,
      openLevels,
    });
    const kids = (children.get(span.spanID) ?? []).filter((k) => !seen.has(k.spanID));
    kids.forEach((kid, i) => {
      visit(kid, depth + 1, i === kids.length - 1, depth === 0 ? [] : [...openLevels, !last]);
    });
  };
  roots.forEach((root, i) => {
    visit(root, 0, i === roots.length - 1, []);
  });
  // Whatever a cycle kept out of reach of every root.
  for (const span of [...trace.spans].sort(byStart)) visit(span, 0, true, []);

  const services = [...new Set(rows.map((r) => r.service))];
  return {
    rows,
    start: Number.isFinite(start) ? start : 0,
    duration: Number.isFinite(end) ? end - start : 0,
    services,
  };
}

function parentOf(span: JaegerSpan): string | undefined {
  return span.references.find((r) => r.refType === 'CHILD_OF' && r.traceID === span.traceID)?.spanID;
}

/** As Jaeger marks errors: the `error` tag, or an OTLP status of ERROR. */
export function isError(span: JaegerSpan): boolean {
  const error = tag(span.tags, 'error');
  return error === true || error === 'true' || tag(span.tags, 'otel.status_code') === 'ERROR';
}

export function tag(tags: JaegerTag[], key: string): JaegerTag['value'] | undefined {
  return tags.find((t) => t.key === key)?.value;
}

/** 850 µs, 12.3 ms, 1.24 s, 2 min 5 s: the unit is picked after rounding, so never "1000.0 ms". */
export function formatMicros(micros: number): string {
  if (micros === 0) return '0 ms';
  if (micros < 999.5) return `${Math.round(micros)} µs`;
  const ms = micros / 1000;
  if (ms < 9.995) return `${ms.toFixed(2)} ms`;
  if (ms < 999.95) return `${ms.toFixed(1)} ms`;
  const seconds = micros / 1_000_000;
  if (seconds < 59.995) return `${seconds.toFixed(2)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}
