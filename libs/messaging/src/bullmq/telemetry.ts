import { type Context, context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Attributes, Span as BullSpan, Tracer as BullTracer, Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import { untracedContext, withoutChildSpans } from '../quiet.ts';

// BullMQ's values of its SpanKind enum (OpenTelemetry's numbering).
const PRODUCER = 3;
const CONSUMER = 4;

/**
 * What a background operation gets instead of a span: its work (Redis
 * commands and all) runs untraced.
 */
const QUIET_SPAN: BullSpan<Context> = {
  setSpanOnContext: () => untracedContext(),
  setAttribute: () => undefined,
  setAttributes: () => undefined,
  addEvent: () => undefined,
  recordException: () => undefined,
  end: () => undefined,
};

/**
 * bullmq-otel with three changes, for one trace per story and quiet when idle:
 *
 * - An operation in a trace gets one span, without a span per Redis command
 *   under it; processing a job keeps everything its processor does.
 * - BullMQ's own background work (stalled-job checks, a blocking wait that
 *   found no job, lock renewals, closing) starts no trace of its own: an
 *   operation that is neither inside a trace nor processing a job is not
 *   recorded, and runs untraced. Inside a trace (`add` in a request or a
 *   handler, `complete` in a job) each operation gets its span.
 * - Spans carry OpenTelemetry's messaging attributes beside BullMQ's own
 *   (`messaging.system` bullmq, the queue as destination, the job id as
 *   message id), so they read like the SQS and SNS spans of the same trace.
 */
export function quietTelemetry(tracerName: string): Telemetry<Context> {
  const otel = new BullMQOtel({ tracerName });
  const tracer: BullTracer<Context> = {
    startSpan(name, options, parent) {
      const kind = options?.kind;
      const spanContext = trace.getSpanContext(parent ?? context.active());
      const inTrace = spanContext !== undefined && trace.isSpanContextValid(spanContext);
      if (kind !== CONSUMER && !inTrace) return QUIET_SPAN;
      const span = otel.tracer.startSpan(name, options, parent);
      span.setAttributes({
        'messaging.system': 'bullmq',
        'messaging.operation.name': name.split(' ')[0]!,
        ...(kind === PRODUCER ? { 'messaging.operation.type': 'send' } : {}),
        ...(kind === CONSUMER ? { 'messaging.operation.type': 'process' } : {}),
      });
      const recorded = withMessagingIds(span);
      // Processing a job runs the processor's work, traced. Any other operation
      // (an add, a completion) is one Redis script: its commands get no spans.
      return kind === CONSUMER
        ? recorded
        : { ...recorded, setSpanOnContext: (ctx) => withoutChildSpans(recorded.setSpanOnContext(ctx)) };
    },
  };
  return {
    tracer,
    contextManager: {
      with: (ctx, fn) => otel.contextManager.with(ctx, fn),
      active: () => otel.contextManager.active(),
      // BullMQ starts its long-lived loops (the stalled-job checker) in this context.
      root: () => ROOT_CONTEXT,
      // An add's context has its child spans suppressed, which would also stop the
      // propagator: the job carries the add span's context as a fresh one.
      getMetadata: (ctx) => otel.contextManager.getMetadata(propagatable(ctx)),
      fromMetadata: (active, metadata) => otel.contextManager.fromMetadata(active, metadata),
    },
  };
}

/** The context's span and baggage, in a context that propagation injects. */
function propagatable(ctx: Context): Context {
  const span = trace.getSpan(ctx);
  const baggage = propagation.getBaggage(ctx);
  const fresh = span ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT;
  return baggage ? propagation.setBaggage(fresh, baggage) : fresh;
}

/** Mirrors BullMQ's queue name and job id into the messaging attributes. */
function withMessagingIds(span: BullSpan<Context>): BullSpan<Context> {
  const mirror = (attributes: Attributes): Attributes => {
    const queue = attributes['bullmq.queue.name'];
    const jobId = attributes['bullmq.job.id'];
    return {
      ...attributes,
      ...(typeof queue === 'string' ? { 'messaging.destination.name': queue } : {}),
      ...(typeof jobId === 'string' ? { 'messaging.message.id': jobId } : {}),
    };
  };
  return {
    setSpanOnContext: (ctx) => span.setSpanOnContext(ctx),
    setAttribute: (key, value) => span.setAttributes(mirror({ [key]: value })),
    setAttributes: (attributes) => span.setAttributes(mirror(attributes)),
    addEvent: (name, attributes) => span.addEvent(name, attributes),
    recordException: (exception, time) => span.recordException(exception, time),
    end: () => span.end(),
  };
}
