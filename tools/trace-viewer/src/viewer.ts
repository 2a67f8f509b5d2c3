import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JaegerTrace, toJaegerTrace } from './jaeger.ts';
import { normalizeTraceId } from './model.ts';
import { handleOtlpRequest } from './receiver.ts';
import { createTraceStore, DEFAULT_LIMITS, type StoreLimits, summarize, type TraceSummary } from './store.ts';
import { handleUiRequest } from './ui.ts';

export interface TraceViewerOptions extends Partial<StoreLimits> {
  /** OTLP/HTTP port; 4318 as a collector's. 0: a free port. */
  otlpPort?: number;
  /** Web page and query API; 16686 as Jaeger's. 0: a free port. */
  uiPort?: number;
  /** Loopback unless asked otherwise. */
  host?: string;
}

export interface TraceViewer {
  /** Where services send traces (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  otlpEndpoint: string;
  uiUrl: string;
  /** Summaries of the traces kept, newest first. */
  traces(): TraceSummary[];
  /** One trace as Jaeger's query API returns it. */
  trace(traceId: string): JaegerTrace | undefined;
  stop(): Promise<void>;
}

/**
 * A local stand-in for Jaeger: takes OTLP/HTTP traces, keeps the recent ones
 * in memory and shows them on Jaeger's URLs (`/trace/{id}`, `/api/traces/{id}`).
 */
export async function startTraceViewer(options: TraceViewerOptions = {}): Promise<TraceViewer> {
  const host = options.host ?? '127.0.0.1';
  const limits: StoreLimits = {
    maxTraces: options.maxTraces ?? DEFAULT_LIMITS.maxTraces,
    maxSpansPerTrace: options.maxSpansPerTrace ?? DEFAULT_LIMITS.maxSpansPerTrace,
    maxSpans: options.maxSpans ?? DEFAULT_LIMITS.maxSpans,
  };
  const store = createTraceStore(limits);

  const otlp = createServer(
    guarded((req, res) => handleOtlpRequest(req, res, (decoded) => store.add(decoded.spans))),
  );
  const otlpPort = await listen(otlp, options.otlpPort ?? 4318, host);
  const otlpEndpoint = `http://${urlHost(host)}:${otlpPort}`;

  const ui = createServer(guarded((req, res) => handleUiRequest(req, res, { store, limits, otlpEndpoint })));
  let uiPort: number;
  try {
    uiPort = await listen(ui, options.uiPort ?? 16686, host);
  } catch (error) {
    await close(otlp);
    throw error;
  }

  return {
    otlpEndpoint,
    uiUrl: `http://${urlHost(host)}:${uiPort}`,
    traces: () => store.list().map(summarize),
    trace: (traceId) => {
      const id = normalizeTraceId(traceId);
      const stored = id ? store.get(id) : undefined;
      return stored && toJaegerTrace(stored);
    },
    stop: async () => {
      await Promise.all([close(otlp), close(ui)]);
    },
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A bug in a handler answers 500 instead of taking the launcher down with it. */
function guarded(handler: Handler): Handler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`trace viewer error: ${(error as Error).message}\n`);
    }
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
