// The JSON of Jaeger's query API (`/api/traces/{id}`), built from stored
// spans the way Jaeger's own OTLP translator does, so the page, `pnpm trace`
// and any script work the same against this viewer and a real Jaeger.
import type { Attribute, AttributeValue, Span } from './model.ts';
import { compareBigint, type StoredTrace } from './store.ts';

export interface JaegerTag {
  key: string;
  type: 'string' | 'bool' | 'int64' | 'float64' | 'binary';
  value: string | boolean | number;
}

export interface JaegerReference {
  refType: 'CHILD_OF' | 'FOLLOWS_FROM';
  traceID: string;
  spanID: string;
}

export interface JaegerLog {
  /** Unix microseconds. */
  timestamp: number;
  fields: JaegerTag[];
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: JaegerReference[];
  /** Unix microseconds. */
  startTime: number;
  /** Microseconds. */
  duration: number;
  tags: JaegerTag[];
  logs: JaegerLog[];
  processID: string;
  warnings: string[] | null;
  flags?: number;
}

export interface JaegerProcess {
  serviceName: string;
  tags: JaegerTag[];
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, JaegerProcess>;
  warnings: string[] | null;
}

export function toJaegerTrace(trace: StoredTrace): JaegerTrace {
  const spans = [...trace.spans.values()].sort((a, b) => compareBigint(a.startNanos, b.startNanos));
  const processes: Record<string, JaegerProcess> = {};
  const processIds = new Map<string, string>();
  const processOf = (span: Span): string => {
    const tags = span.resource.filter((a) => a.key !== 'service.name').map(toTag);
    const key = JSON.stringify([span.service, tags]);
    let id = processIds.get(key);
    if (!id) {
      id = `p${processIds.size + 1}`;
      processIds.set(key, id);
      processes[id] = { serviceName: span.service, tags };
    }
    return id;
  };
  return {
    traceID: trace.traceId,
    spans: spans.map((span) => toJaegerSpan(span, processOf(span))),
    processes,
    warnings:
      trace.droppedSpans > 0
        ? [`${trace.droppedSpans} spans dropped: the trace is over the viewer's limit of spans per trace`]
        : null,
  };
}

function toJaegerSpan(span: Span, processID: string): JaegerSpan {
  const references: JaegerReference[] = [];
  if (span.parentSpanId)
    references.push({ refType: 'CHILD_OF', traceID: span.traceId, spanID: span.parentSpanId });
  for (const link of span.links)
    references.push({ refType: 'FOLLOWS_FROM', traceID: link.traceId, spanID: link.spanId });
  return {
    traceID: span.traceId,
    spanID: span.spanId,
    operationName: span.name,
    references,
    startTime: micros(span.startNanos),
    duration: span.endNanos > span.startNanos ? micros(span.endNanos - span.startNanos) : 0,
    tags: [...span.attributes.map(toTag), ...syntheticTags(span)],
    logs: span.events.map((event) => ({
      timestamp: micros(event.timeNanos),
      fields: [{ key: 'event', type: 'string', value: event.name }, ...event.attributes.map(toTag)],
    })),
    processID,
    warnings: null,
    flags: 1,
  };
}

/** The tags Jaeger adds for what OTLP keeps outside attributes. */
function syntheticTags(span: Span): JaegerTag[] {
  const tags: JaegerTag[] = [];
  const add = (key: string, value: string | boolean) =>
    tags.push({ key, type: typeof value === 'boolean' ? 'bool' : 'string', value });
  if (span.scope.name) add('otel.scope.name', span.scope.name);
  if (span.scope.version) add('otel.scope.version', span.scope.version);
  if (span.kind !== 'unspecified') add('span.kind', span.kind);
  if (span.status.code !== 'unset') add('otel.status_code', span.status.code.toUpperCase());
  if (span.status.message) add('otel.status_description', span.status.message);
  if (span.status.code === 'error') add('error', true);
  return tags;
}

export function toTag(attribute: Attribute): JaegerTag {
  const { key, value } = attribute;
  switch (value.type) {
    case 'string':
      return { key, type: 'string', value: value.value };
    case 'bool':
      return { key, type: 'bool', value: value.value };
    case 'int':
      return { key, type: 'int64', value: value.value };
    case 'double':
      return { key, type: 'float64', value: value.value };
    case 'bytes':
      return { key, type: 'binary', value: value.value };
    default:
      // Arrays and maps: Jaeger has no such tag type and keeps them as JSON text.
      return { key, type: 'string', value: JSON.stringify(plain(value)) };
  }
}

function plain(value: AttributeValue): unknown {
  switch (value.type) {
    case 'empty':
      return null;
    case 'array':
      return value.value.map(plain);
    case 'kvlist':
      return Object.fromEntries(value.value.map((a) => [a.key, plain(a.value)]));
    default:
      return value.value;
  }
}

function micros(nanos: bigint): number {
  return Number(nanos / 1000n);
}
