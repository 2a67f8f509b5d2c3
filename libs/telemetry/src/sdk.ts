import { FastifyOtelInstrumentation } from '@fastify/otel';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { setTelemetryHandle } from './handle.ts';
import { PrivacySpanProcessor } from './privacy.ts';

/**
 * Starts the OpenTelemetry Node SDK with an OTLP/HTTP trace exporter
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, default http://127.0.0.1:4318) and the
 * instrumentations Hireflow uses. Metrics and logs exporters are off unless
 * asked for: pointing at nothing, they make `shutdown()` wait ~8 s.
 */
export function startTelemetry(): void {
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    // Scrubbed first, then batched to the exporter: no personal data leaves the process.
    spanProcessors: [
      new PrivacySpanProcessor(),
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...batchSettings(process.env) }),
    ],
    instrumentations: [
      getNodeAutoInstrumentations({
        // Noise without value for this system: every file read and DNS lookup.
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
        // Commands only: arguments carry keys and payloads.
        '@opentelemetry/instrumentation-ioredis': { dbStatementSerializer: (command) => command },
        // Health probes would otherwise fill Jaeger.
        '@opentelemetry/instrumentation-http': {
          ignoreIncomingRequestHook: (req) => req.url?.startsWith('/health') ?? false,
        },
      }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true, ignorePaths: '/health/**' }),
    ],
  });
  sdk.start();
  setTelemetryHandle({ shutdown: () => sdk.shutdown() });
}

/** The standard OTEL_BSP_* variables (the SDK reads them only for the processor it builds itself). */
function batchSettings(env: Record<string, string | undefined>) {
  const read = (name: string) => {
    const value = Number(env[name]);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const settings = {
    scheduledDelayMillis: read('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: read('OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: read('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
}
