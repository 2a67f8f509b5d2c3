export { condenseTrace, isStoryStep } from './condense.ts';
export { traceOtlpPort, traceQuerySchema, traceUiPort, traceViewerSchema } from './config.ts';
export type {
  JaegerLog,
  JaegerProcess,
  JaegerReference,
  JaegerSpan,
  JaegerTag,
  JaegerTrace,
} from './jaeger.ts';
export type { TraceLookup } from './print.ts';
export { fetchTrace, printTrace } from './print.ts';
export { formatMicros, spanTree } from './span-tree.ts';
export type { StoreLimits, TraceSummary } from './store.ts';
export { renderTraceTree } from './tree-text.ts';
export type { TraceViewer, TraceViewerOptions } from './viewer.ts';
export { startTraceViewer } from './viewer.ts';
