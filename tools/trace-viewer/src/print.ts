import type { JaegerTrace } from './jaeger.ts';
import { normalizeTraceId } from './model.ts';
import { renderTraceTree } from './tree-text.ts';

export type TraceLookup = { found: true; trace: JaegerTrace } | { found: false; message: string };

/** Asks a Jaeger query API (a real Jaeger or the local viewer) for one trace. */
export async function fetchTrace(
  queryUrl: string,
  traceId: string,
  timeoutMs = 10_000,
): Promise<TraceLookup> {
  const url = new URL(`api/traces/${traceId}`, queryUrl.endsWith('/') ? queryUrl : `${queryUrl}/`);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    return {
      found: false,
      message:
        `cannot reach a trace viewer at ${queryUrl} (${reason}). Is \`pnpm start\` running? ` +
        'It starts one when OTEL_EXPORTER_OTLP_ENDPOINT is unset; for a Jaeger elsewhere set JAEGER_QUERY_URL.',
    };
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return {
      found: false,
      message:
        `trace ${traceId} not found at ${queryUrl}. Services export spans in batches (every 5 s by default): ` +
        'try again in a moment. The local viewer keeps only recent traces and forgets them when it stops.',
    };
  }
  const body = (await response.json().catch(() => undefined)) as { data?: JaegerTrace[] | null } | undefined;
  const trace = body?.data?.[0];
  if (!response.ok || !trace || !Array.isArray(trace.spans)) {
    return { found: false, message: `${url} answered ${response.status} without a trace` };
  }
  if (trace.spans.length === 0)
    return { found: false, message: `trace ${traceId} has no spans at ${queryUrl}` };
  return { found: true, trace };
}

/** What `pnpm trace <id>` does: the text to print and the exit code. */
export async function printTrace(
  queryUrl: string,
  rawId: string | undefined,
  options: { color: boolean },
): Promise<{ code: number; out: string; err: string }> {
  const traceId = rawId === undefined ? undefined : normalizeTraceId(rawId);
  if (!traceId) {
    return {
      code: 64,
      out: '',
      err: 'usage: pnpm trace <traceId>   (the traceId of a 202 response: 32 hex digits)\n',
    };
  }
  const lookup = await fetchTrace(queryUrl, traceId);
  if (!lookup.found) return { code: 1, out: '', err: `${lookup.message}\n` };
  return { code: 0, out: renderTraceTree(lookup.trace, options), err: '' };
}
