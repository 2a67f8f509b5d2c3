import { FastifyOtelInstrumentation } from '@fastify/otel';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { setTelemetryHandle } from './handle.ts';

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
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      getNodeAutoInstrumentations({
        // Noise without value for this system: every file read and DNS lookup.
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
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
