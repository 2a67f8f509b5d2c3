import type { JaegerSpan, JaegerTrace } from './jaeger.ts';
import { tag } from './span-tree.ts';

/**
 * Whether a span is a step of the story rather than plumbing: a request a
 * service served, or a span of Hireflow's own code (a message published or
 * processed, a job added or run, a computation, an email sent, an image
 * resized). SQL, Redis commands, HTTP clients and BullMQ's bookkeeping
 * (`complete`, lock renewals) are plumbing.
 */
export function isStoryStep(span: JaegerSpan): boolean {
  const kind = tag(span.tags, 'span.kind');
  if (kind === 'server') return true;
  const scope = tag(span.tags, 'otel.scope.name');
  if (typeof scope !== 'string' || !scope.startsWith('@hireflow/')) return false;
  const bullmqBookkeeping = kind === 'internal' && tag(span.tags, 'bullmq.queue.operation') !== undefined;
  return !bullmqBookkeeping;
}

/**
 * The trace with only the spans `keep` accepts, each hung under its nearest
 * kept ancestor, so a tree of 250 spans reads as the dozen hops of its story.
 * A span whose ancestors are all dropped becomes a root; one whose parent is
 * not in the trace at all stays an orphan.
 */
export function condenseTrace(trace: JaegerTrace, keep: (span: JaegerSpan) => boolean): JaegerTrace {
  const byId = new Map(trace.spans.map((s) => [s.spanID, s]));
  const kept = new Set(trace.spans.filter(keep).map((s) => s.spanID));
  const parentOf = (span: JaegerSpan) =>
    span.references.find((r) => r.refType === 'CHILD_OF' && r.traceID === span.traceID)?.spanID;
  const keptAncestor = (span: JaegerSpan): { id: string | undefined; missing: boolean } => {
    const seen = new Set<string>([span.spanID]);
    let parent = parentOf(span);
    while (parent !== undefined && !seen.has(parent)) {
      if (kept.has(parent)) return { id: parent, missing: false };
      const next = byId.get(parent);
      if (!next) return { id: parent, missing: true };
      seen.add(parent);
      parent = parentOf(next);
    }
    return { id: undefined, missing: false };
  };
  const spans = trace.spans
    .filter((s) => kept.has(s.spanID))
    .map((span) => {
      const ancestor = keptAncestor(span);
      const others = span.references.filter((r) => r.refType !== 'CHILD_OF' || r.traceID !== span.traceID);
      const references =
        ancestor.id === undefined
          ? others
          : [{ refType: 'CHILD_OF' as const, traceID: span.traceID, spanID: ancestor.id }, ...others];
      return { ...span, references };
    });
  return { ...trace, spans };
}
