// A known multi-service trace recorded by the real OpenTelemetry SDK, for the
// specs and tests: what the services' exporters actually send.
import { context, type HrTime, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { T0 } from './testing.ts';

export { T0 };

/** T0 (Unix seconds) is the trace's start; offsets below are in nanoseconds after it. */
export const at = (nanos: number): HrTime => [T0 + Math.floor(nanos / 1e9), nanos % 1e9];
export const MS = 1_000_000;

export const LINKED = { traceId: 'aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb', spanId: 'cccccccccccccccc' };

export interface KnownTrace {
  spans: ReadableSpan[];
  traceId: string;
  ids: { root: string; insert: string; consume: string; score: string; smtp: string };
}

/**
 * jobs `POST /v1/jobs` → jobs `INSERT …`, and → matching `job-events process`
 * (linked to another trace) → matching `score <candidates>` and
 * notifications `smtp send`, which fails with an exception.
 */
export async function recordKnownTrace(): Promise<KnownTrace> {
  const memory = new InMemorySpanExporter();
  const providers: TracerProvider[] = [];
  const tracerOf = (service: string): Tracer => {
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': service, 'service.version': '1.0.0' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    providers.push(provider);
    return provider.getTracer('hireflow-test', '0.1.0');
  };
  const jobs = tracerOf('jobs');
  const matching = tracerOf('matching');
  const notifications = tracerOf('notifications');

  const root = jobs.startSpan('POST /v1/jobs', {
    kind: SpanKind.SERVER,
    startTime: at(0),
    attributes: {
      'http.request.method': 'POST',
      'http.response.status_code': 202,
      'hireflow.ratio': 0.25,
      'hireflow.cached': false,
      'hireflow.offset': -5,
      'hireflow.skills': ['node', 'postgres'],
    },
  });
  const rootContext = trace.setSpan(context.active(), root);
  const insert = jobs.startSpan(
    'INSERT hireflow_jobs.job',
    { kind: SpanKind.CLIENT, startTime: at(2 * MS), attributes: { 'db.system.name': 'postgresql' } },
    rootContext,
  );
  insert.end(at(5.5 * MS));
  const consume = matching.startSpan(
    'job-events process',
    {
      kind: SpanKind.CONSUMER,
      startTime: at(60 * MS),
      links: [{ context: { ...LINKED, traceFlags: 1 }, attributes: { 'messaging.batch': true } }],
    },
    rootContext,
  );
  const consumeContext = trace.setSpan(context.active(), consume);
  const score = matching.startSpan(
    'score <candidates>',
    { startTime: at(61 * MS), attributes: { 'hireflow.note': '<b>&"quoted"</b>' } },
    consumeContext,
  );
  score.end(at(64 * MS));
  const smtp = notifications.startSpan(
    'smtp send',
    { kind: SpanKind.CLIENT, startTime: at(70 * MS) },
    consumeContext,
  );
  smtp.recordException(new Error('connect ECONNREFUSED 127.0.0.1:1025'), at(84 * MS));
  smtp.setStatus({ code: SpanStatusCode.ERROR, message: 'connect ECONNREFUSED 127.0.0.1:1025' });
  smtp.end(at(85 * MS));
  consume.end(at(90 * MS));
  root.end(at(40 * MS));

  await Promise.all(providers.map((p) => p.forceFlush()));
  const spans = memory.getFinishedSpans();
  await Promise.all(providers.map((p) => p.shutdown()));
  const idOf = (s: { spanContext(): { spanId: string } }) => s.spanContext().spanId;
  return {
    spans: [...spans],
    traceId: root.spanContext().traceId,
    ids: {
      root: idOf(root),
      insert: idOf(insert),
      consume: idOf(consume),
      score: idOf(score),
      smtp: idOf(smtp),
    },
  };
}
