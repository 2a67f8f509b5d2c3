import {
  condenseTrace,
  fetchTrace,
  formatMicros,
  isStoryStep,
  type JaegerTrace,
  renderTraceTree,
  spanTree,
} from '@hireflow/trace-viewer';
import { poll } from './api.ts';

/** A span the trace must hold before the demo prints it: spans arrive in batches, service by service. */
export interface ExpectedSpan {
  service: string;
  /** The span's name starts with it. */
  name: string;
  count?: number;
}

export interface StoryTrace {
  /** What answered 202, e.g. `POST /v1/jobs`. */
  label: string;
  traceId: string;
  expected: ExpectedSpan[];
}

export function missingSpans(trace: JaegerTrace, expected: ExpectedSpan[]): ExpectedSpan[] {
  return expected.filter(({ service, name, count = 1 }) => {
    const found = trace.spans.filter(
      (s) => trace.processes[s.processID]?.serviceName === service && s.operationName.startsWith(name),
    );
    return found.length < count;
  });
}

/** Waits (up to `timeoutMs`) until the trace holds what is expected; the trace as it is then, if any. */
export async function awaitTrace(
  queryUrl: string,
  story: StoryTrace,
  timeoutMs: number,
): Promise<{ trace: JaegerTrace | undefined; missing: ExpectedSpan[] }> {
  let last: JaegerTrace | undefined;
  const complete = await poll(async () => {
    const lookup = await fetchTrace(queryUrl, story.traceId);
    if (!lookup.found) return undefined;
    last = lookup.trace;
    return missingSpans(lookup.trace, story.expected).length === 0 ? lookup.trace : undefined;
  }, timeoutMs);
  return { trace: complete ?? last, missing: last ? missingSpans(last, story.expected) : story.expected };
}

/**
 * The trace's summary (its full size) and its story: the hops and the work,
 * without SQL, Redis and HTTP-client spans, which `pnpm trace <id>` shows.
 */
export function renderStory(trace: JaegerTrace, color: boolean): string[] {
  const full = spanTree(trace);
  const errors = full.rows.filter((r) => r.error).length;
  const roots = full.rows.filter((r) => r.depth === 0).length;
  const condensed = renderTraceTree(condenseTrace(trace, isStoryStep), { color }).trimEnd().split('\n');
  return [
    [
      `${full.rows.length} spans`,
      `${full.services.length} services (${full.services.join(', ')})`,
      formatMicros(full.duration),
      roots === 1 ? 'one root' : `${roots} roots`,
      errors === 0 ? 'no errors' : `${errors} errors`,
    ].join(' · '),
    // The condensed tree without its own header (trace id, summary, blank line).
    ...condensed.slice(3),
  ];
}
