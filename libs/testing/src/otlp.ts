import { readBody, startLocalServer } from './http-server.ts';

export interface ExportedSpan {
  /** The exporting process's `service.name`. */
  service: string;
  traceId: string;
  name: string;
  /** The instrumentation scope that made it (`@opentelemetry/instrumentation-pg` …). */
  scope: string;
  /** Its attributes, each value as OTLP/JSON's `AnyValue` holds it (`stringValue`, `intValue` …). */
  attributes: Record<string, unknown>;
  /** The span as exported (attributes, events …), to look for personal data in. */
  raw: string;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT, with OTEL_EXPORTER_OTLP_PROTOCOL=http/json. */
  endpoint: string;
  spans: ExportedSpan[];
  close(): Promise<void>;
}

/** A minimal OTLP/HTTP (JSON) trace receiver on a free loopback port: what processes export. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ExportedSpan[] = [];
  const server = await startLocalServer(async (req, res) => {
    const text = (await readBody(req)).toString('utf8');
    try {
      const body = JSON.parse(text);
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value
          ?.stringValue;
        for (const ss of rs.scopeSpans ?? []) {
          for (const span of ss.spans ?? []) {
            const { traceId, name } = span;
            const attributes = Object.fromEntries(
              (span.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [
                a.key,
                Object.values(a.value ?? {})[0],
              ]),
            );
            spans.push({
              service,
              traceId,
              name,
              scope: ss.scope?.name,
              attributes,
              raw: JSON.stringify(span),
            });
          }
        }
      }
    } catch {
      // not JSON: ignore
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { endpoint: server.url, spans, close: server.close };
}
