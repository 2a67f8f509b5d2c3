// The variables of the trace viewer and of `pnpm trace`; the launcher reuses
// the port settings, so one description serves the README table and both.
import { port, positiveInt } from '@hireflow/config';
import { z } from 'zod';
import { DEFAULT_LIMITS } from './store.ts';

export const traceOtlpPort = () =>
  port(4318).describe('OTLP/HTTP port of the local trace viewer (when no collector is configured).');

export const traceUiPort = () =>
  port(16686).describe('Web page of the local trace viewer (Jaeger URL shapes).');

/** `node tools/trace-viewer/src/cli/viewer.ts`: the viewer on its own. */
export const traceViewerSchema = z.object({
  TRACE_OTLP_PORT: traceOtlpPort(),
  TRACE_UI_PORT: traceUiPort(),
  TRACE_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Address both ports bind; loopback unless you mean to share traces.'),
  TRACE_MAX_TRACES: positiveInt(
    'Traces kept in memory; the least recently updated goes first.',
    DEFAULT_LIMITS.maxTraces,
    1_000_000,
  ),
  TRACE_MAX_SPANS_PER_TRACE: positiveInt(
    'Spans kept per trace; later ones are counted as dropped.',
    DEFAULT_LIMITS.maxSpansPerTrace,
    1_000_000,
  ),
  TRACE_MAX_SPANS: positiveInt('Spans kept in all.', DEFAULT_LIMITS.maxSpans, 10_000_000),
});

/** `pnpm trace <traceId>`. */
export const traceQuerySchema = z.object({
  JAEGER_QUERY_URL: z
    .url({
      protocol: /^https?$/,
      message: 'must be an http:// or https:// URL (e.g. http://127.0.0.1:16686)',
    })
    .default('http://127.0.0.1:16686')
    .describe('Jaeger query API to read traces from: the local trace viewer or a real Jaeger.'),
});
