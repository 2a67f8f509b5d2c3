import { connect } from 'node:net';
import { startTraceViewer, type TraceViewer } from '@hireflow/trace-viewer';
import type { LauncherSettings } from './settings.ts';

export interface TraceBackend {
  /** What the services get as OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** The local viewer, when the launcher started one. */
  viewer: TraceViewer | undefined;
  /** For the launcher's log. */
  description: string;
}

/**
 * Where the services send traces: the user's OTEL_EXPORTER_OTLP_ENDPOINT;
 * else a collector that already listens on 127.0.0.1:TRACE_OTLP_PORT (a
 * Jaeger, or the viewer of another `pnpm start`); else a local trace viewer
 * started here, as the mail catcher is when SMTP_URL is unset.
 */
export async function startTraceBackend(
  settings: Pick<LauncherSettings, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'TRACE_OTLP_PORT' | 'TRACE_UI_PORT'>,
): Promise<TraceBackend> {
  if (settings.OTEL_EXPORTER_OTLP_ENDPOINT) {
    const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
    return { endpoint, viewer: undefined, description: `traces go to ${endpoint}` };
  }
  const port = settings.TRACE_OTLP_PORT;
  if (port !== 0 && (await listening('127.0.0.1', port))) {
    const endpoint = `http://127.0.0.1:${port}`;
    return {
      endpoint,
      viewer: undefined,
      description: `a collector already listens on 127.0.0.1:${port}: traces go there (not starting the local trace viewer)`,
    };
  }
  const viewer = await startTraceViewer({ otlpPort: port, uiPort: settings.TRACE_UI_PORT }).catch((error) => {
    throw new Error(
      `cannot start the trace viewer on ports ${port}/${settings.TRACE_UI_PORT} (${error.message}); set TRACE_OTLP_PORT/TRACE_UI_PORT, or OTEL_EXPORTER_OTLP_ENDPOINT`,
    );
  });
  return {
    endpoint: viewer.otlpEndpoint,
    viewer,
    description: `trace viewer: OTLP ${viewer.otlpEndpoint}, open traces at ${viewer.uiUrl}`,
  };
}

function listening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
