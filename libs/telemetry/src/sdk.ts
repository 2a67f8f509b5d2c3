import { FastifyOtelInstrumentation } from '@fastify/otel';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { setTelemetryHandle } from './handle.ts';
import { PrivacySpanProcessor } from './privacy.ts';
import { QuietStatementsSampler } from './sampler.ts';

/**
 * Starts the OpenTelemetry Node SDK with an OTLP/HTTP trace exporter
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, default http://127.0.0.1:4318) and the
 * instrumentations Hireflow uses. Metrics and logs exporters are off unless
 * asked for: pointing at nothing, they make `shutdown()` wait ~8 s.
 */
export function startTelemetry(): void {
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  // What Hireflow uses, not the forty libraries the package knows: each one
  // enabled hooks every module load, and some (runtime-node) watch the event
  // loop and every GC whether or not anything reads it.
  process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS ??= 'http,pg,ioredis,aws-sdk,pino';
  const sdk = new NodeSDK({
    // The SDK's default (parent-based, always on), without a span per BEGIN and COMMIT.
    // OTEL_TRACES_SAMPLER, when set, is the SDK's to apply as it is.
    ...(process.env.OTEL_TRACES_SAMPLER ? {} : { sampler: new QuietStatementsSampler() }),
    // Scrubbed first, then batched to the exporter: no personal data leaves the process.
    spanProcessors: [
      new PrivacySpanProcessor(),
      new BatchSpanProcessor({ exporter: traceExporter(process.env), ...batchSettings(process.env) }),
    ],
    instrumentations: [
      getNodeAutoInstrumentations({
        // Commands only: arguments carry keys and payloads. A command outside
        // any operation (BullMQ's blocking waits) records nothing.
        '@opentelemetry/instrumentation-ioredis': {
          dbStatementSerializer: (command) => command,
          requireParentSpan: true,
        },
        // The same for SQL: a poll (outbox, samplers, LISTEN) is no trace of its own.
        // Taking a pooled connection is no step worth a span (it was one per query).
        '@opentelemetry/instrumentation-pg': { requireParentSpan: true, ignoreConnectSpans: true },
        '@opentelemetry/instrumentation-http': {
          // Probes and scrapes would otherwise fill Jaeger; what they run is untraced too.
          ignoreIncomingRequestHook: (req) => isPolledPath(req.url),
          // The services' only HTTP calls are the AWS SDK's, which has spans of its own:
          // client spans repeated them, twice over (node:http is patched by both loaders).
          disableOutgoingRequestInstrumentation: true,
        },
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // The request and its handler; no span per lifecycle hook (auth, idempotency,
        // rate limit): what a hook does (its SQL, its Redis call) is a child of the request.
        instrumentHooks: false,
        ignorePaths: (route) => isPolledPath(route.url),
      }),
    ],
  });
  sdk.start();
  setTelemetryHandle({ shutdown: () => sdk.shutdown() });
}

/**
 * OTLP/HTTP in protobuf, the specification's default and a fraction of the
 * bytes and CPU of JSON; JSON when OTEL_EXPORTER_OTLP_PROTOCOL says `http/json`.
 */
function traceExporter(env: Record<string, string | undefined>) {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  return protocol === 'http/json' ? new OTLPJsonTraceExporter() : new OTLPProtoTraceExporter();
}

/**
 * Paths machines poll: health probes, Prometheus scrapes, and the API Bull
 * Board's page polls while it is open. Their requests record no span.
 */
export function isPolledPath(url: string | undefined): boolean {
  if (!url) return false;
  return (
    url.startsWith('/health') ||
    url === '/metrics' ||
    url.startsWith('/metrics?') ||
    url.startsWith('/admin/queues/api')
  );
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
