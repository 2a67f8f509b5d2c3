// The local trace viewer on its own: `node tools/trace-viewer/src/cli/viewer.ts`.
// `pnpm start` runs the same viewer itself when no collector is configured.
import { parseConfig } from '@hireflow/config';
import { settingsOrExit } from '@hireflow/config/cli';
import { traceViewerSchema } from '../config.ts';
import { startTraceViewer } from '../viewer.ts';

const config = settingsOrExit(() => parseConfig(traceViewerSchema, process.env));
const viewer = await startTraceViewer({
  otlpPort: config.TRACE_OTLP_PORT,
  uiPort: config.TRACE_UI_PORT,
  host: config.TRACE_HOST,
  maxTraces: config.TRACE_MAX_TRACES,
  maxSpansPerTrace: config.TRACE_MAX_SPANS_PER_TRACE,
  maxSpans: config.TRACE_MAX_SPANS,
}).catch((error: Error) => {
  console.error(
    `cannot start the trace viewer (${error.message}); set TRACE_OTLP_PORT / TRACE_UI_PORT to free ports (0: any)`,
  );
  process.exit(1);
});
console.log(`trace viewer: send OTLP/HTTP to ${viewer.otlpEndpoint}, open ${viewer.uiUrl}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    viewer.stop().then(() => process.exit(0));
  });
}
