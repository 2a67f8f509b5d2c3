import { context, DiagConsoleLogger, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  diagLogLevelFromString,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { setTelemetryHandle } from './handle.ts';
import { createInstrumentations, instrumentedModules } from './instrumentations.ts';
import { PrivacySpanProcessor } from './privacy.ts';
import { samplerFromEnv } from './sampler.ts';

type Env = Record<string, string | undefined>;

/**
 * Starts tracing with the trace SDK alone (docs/tracing.md, "What a process
 * loads"): the instrumentations Hireflow uses, W3C trace context and baggage,
 * async-local context, the resource from `OTEL_SERVICE_NAME` /
 * `OTEL_RESOURCE_ATTRIBUTES` with the process and host, and an OTLP/HTTP
 * exporter (`OTEL_EXPORTER_OTLP_ENDPOINT`, default http://127.0.0.1:4318).
 * No metrics or logs SDK: Hireflow's metrics are Prometheus (libs/runtime),
 * its logs pino on stdout. `@opentelemetry/sdk-node` loaded all of those,
 * and the gRPC, Zipkin and Prometheus exporters, whatever the settings said.
 * Returns the modules the instrumentations patch, for the ESM loader hook.
 */
export async function startTelemetry(env: Env = process.env): Promise<{ modules: string[] }> {
  if (env.OTEL_LOG_LEVEL) {
    diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(env.OTEL_LOG_LEVEL) });
  }
  // First, so each instrumentation hooks its module before the application imports it.
  const { instrumentations, unknown } = await createInstrumentations(env);
  if (unknown.length > 0) diag.error(`no such instrumentation here: ${unknown.join(', ')}`);
  registerInstrumentations({ instrumentations });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const provider = new TracerProvider({
    // The SDK's default (parent-based, always on), without a span per BEGIN and
    // COMMIT; OTEL_TRACES_SAMPLER, when set, applied as it is.
    sampler: samplerFromEnv(env),
    resource: defaultResource().merge(
      detectResources({ detectors: [envDetector, processDetector, hostDetector] }),
    ),
    // Scrubbed first, then batched to the exporter: no personal data leaves the process.
    spanProcessors: [
      new PrivacySpanProcessor(),
      new BatchSpanProcessor({ exporter: await traceExporter(env), ...batchSettings(env) }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  setTelemetryHandle({ shutdown: () => provider.shutdown() });
  return { modules: instrumentedModules(instrumentations) };
}

/**
 * OTLP/HTTP in protobuf, the specification's default and a fraction of the
 * bytes and CPU of JSON; JSON when OTEL_EXPORTER_OTLP_PROTOCOL says `http/json`.
 * Only the one in use is loaded. (`grpc` is not offered: it would bring
 * @grpc/grpc-js into every process for what OTLP/HTTP does as well.)
 */
async function traceExporter(env: Env): Promise<SpanExporter> {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === 'http/json') {
    return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  }
  if (protocol && protocol !== 'http/protobuf') {
    diag.error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported here; using http/protobuf`);
  }
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/** The standard OTEL_BSP_* variables (the SDK reads them only for a processor it builds itself). */
function batchSettings(env: Env) {
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
