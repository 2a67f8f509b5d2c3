import type { Span } from './model.ts';

export interface StoreLimits {
  /**
   * Traces kept; past it the trace that received spans least recently goes,
   * single-span traces (background polling) before the others.
   */
  maxTraces: number;
  /** Spans kept per trace; later ones are counted as dropped. */
  maxSpansPerTrace: number;
  /** Spans kept in all, so a few huge traces cannot take all memory. */
  maxSpans: number;
}

export const DEFAULT_LIMITS: StoreLimits = { maxTraces: 1000, maxSpansPerTrace: 2000, maxSpans: 100_000 };

export interface StoredTrace {
  traceId: string;
  /** By span id: an exporter retrying a batch sends the same spans again. */
  spans: Map<string, Span>;
  /** Spans not kept because the trace was over maxSpansPerTrace. */
  droppedSpans: number;
}

export interface TraceSummary {
  traceId: string;
  rootService: string;
  rootName: string;
  /** Unix nanoseconds of the earliest span. */
  startNanos: bigint;
  durationNanos: bigint;
  spanCount: number;
  services: string[];
  errorCount: number;
}

export interface TraceStore {
  add(spans: Span[]): void;
  get(traceId: string): StoredTrace | undefined;
  /** Newest first (by the trace's start). */
  list(): StoredTrace[];
  services(): string[];
  spanCount(): number;
}

/** Recent traces in memory, bounded on every side. */
export function createTraceStore(limits: StoreLimits = DEFAULT_LIMITS): TraceStore {
  // Map order is recency of receipt: a trace that gets spans moves to the end.
  const traces = new Map<string, StoredTrace>();
  let total = 0;

  // The services' background work (outbox polling, queue checks) makes many
  // one-span root traces; evicted strictly by age they would push out, within
  // a minute, the request traces a person came to look at. So the oldest
  // single-span trace goes first, but never one written by this very export.
  const evictOne = (written: Set<string>) => {
    let victim: StoredTrace | undefined;
    for (const trace of traces.values()) {
      if (written.has(trace.traceId)) break; // written traces sit at the end, after all others
      if (trace.spans.size === 1) {
        victim = trace;
        break;
      }
    }
    victim ??= traces.values().next().value;
    if (!victim) return;
    traces.delete(victim.traceId);
    total -= victim.spans.size;
  };

  return {
    add(spans) {
      const written = new Set<string>();
      for (const span of spans) {
        written.add(span.traceId);
        let trace = traces.get(span.traceId);
        if (trace) traces.delete(span.traceId);
        else trace = { traceId: span.traceId, spans: new Map(), droppedSpans: 0 };
        traces.set(span.traceId, trace);
        if (trace.spans.has(span.spanId)) trace.spans.set(span.spanId, span);
        else if (trace.spans.size >= limits.maxSpansPerTrace) trace.droppedSpans++;
        else {
          trace.spans.set(span.spanId, span);
          total++;
        }
      }
      while (traces.size > limits.maxTraces) evictOne(written);
      // The trace written last survives unless it alone is over the bound.
      while (total > limits.maxSpans && traces.size > 1) evictOne(written);
    },
    get: (traceId) => traces.get(traceId),
    list: () => [...traces.values()].sort((a, b) => compareBigint(startOf(b), startOf(a))),
    services: () =>
      [...new Set([...traces.values()].flatMap((t) => [...t.spans.values()].map((s) => s.service)))].sort(),
    spanCount: () => total,
  };
}

export function summarize(trace: StoredTrace): TraceSummary {
  const spans = [...trace.spans.values()];
  const root = rootSpans(trace)[0]!;
  const start = startOf(trace);
  let end = start;
  for (const span of spans) if (span.endNanos > end) end = span.endNanos;
  return {
    traceId: trace.traceId,
    rootService: root.service,
    rootName: root.name,
    startNanos: start,
    durationNanos: end - start,
    spanCount: spans.length,
    services: [...new Set(spans.map((s) => s.service))].sort(),
    errorCount: spans.filter((s) => s.status.code === 'error').length,
  };
}

/** Spans whose parent is not in the trace (the root, or orphans whose parent never arrived), earliest first. */
export function rootSpans(trace: StoredTrace): Span[] {
  const all = [...trace.spans.values()];
  const roots = all.filter((s) => s.parentSpanId === undefined || !trace.spans.has(s.parentSpanId));
  // Spans whose parents form a cycle have no root: the earliest stands in.
  return (roots.length > 0 ? roots : all).sort(
    (a, b) => rank(a) - rank(b) || compareBigint(a.startNanos, b.startNanos),
  );
}

/** A true root (no parent at all) before an orphan. */
const rank = (span: Span) => (span.parentSpanId === undefined ? 0 : 1);

export function startOf(trace: StoredTrace): bigint {
  let start: bigint | undefined;
  for (const span of trace.spans.values())
    if (start === undefined || span.startNanos < start) start = span.startNanos;
  return start ?? 0n;
}

export function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
