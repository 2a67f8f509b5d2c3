import { PublishBatchCommand, PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type AnyEvent, type CloudEvent, escapeForSqs, parseEvent } from '@hireflow/contracts';
import { type Context, context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { assertAttributeBudget, eventAttributes } from '../attributes.ts';
import { messageGroupIdOfEvent } from '../message-group.ts';
import { untraced } from '../quiet.ts';
import { eventSpanAttributes, extractTrace, injectTrace, type TraceCarrier } from '../trace.ts';

/** SNS PublishBatch takes at most 10 entries. */
export const SNS_MAX_BATCH = 10;

export interface OutgoingEvent {
  event: CloudEvent | AnyEvent;
  /**
   * `event` as JSON text when the caller has it already (the outbox row's
   * payload): published as it is instead of serialising `event` again. It
   * must be that event's JSON.
   */
  json?: string;
  /** The trace the event belongs to (from the outbox row); defaults to the active context. */
  trace?: TraceCarrier;
}

export interface PublishFailure {
  eventId: string;
  code: string;
  message: string;
}

export interface PublishResult {
  published: string[];
  failed: PublishFailure[];
}

const tracer = trace.getTracer('@hireflow/messaging');

/**
 * Publishes CloudEvents to an SNS topic with the `type` attribute (for filter
 * policies) and the W3C trace context set per entry: the AWS SDK
 * instrumentation injects nothing into PublishBatch. Each entry gets a
 * `publish <topic>` producer span, child of the entry's own trace, and its
 * event's tenant as `MessageGroupId` (message-group.ts: `-` for an event
 * without one; docs/fairness.md, "SQS fair queues"). On a standard topic SNS
 * forwards the group to SQS standard subscriptions only, where it makes them
 * fair queues.
 */
export class SnsPublisher {
  readonly #sns: SNSClient;

  constructor(sns: SNSClient) {
    this.#sns = sns;
  }

  /** One event, validated, in the active trace. Throws on failure. */
  async publish(topicArn: string, event: CloudEvent | AnyEvent): Promise<void> {
    const result = await this.publishBatch(topicArn, [{ event: parseEvent(event) }]);
    const failure = result.failed[0];
    if (failure)
      throw new Error(`publish ${event.type} ${event.id} failed: ${failure.code} ${failure.message}`);
  }

  /**
   * Up to 10 events in one PublishBatch call. Partial failures are reported,
   * not thrown: the caller keeps those to retry. A failed call reports every
   * entry as failed.
   */
  async publishBatch(topicArn: string, items: OutgoingEvent[]): Promise<PublishResult> {
    if (items.length === 0) return { published: [], failed: [] };
    if (items.length > SNS_MAX_BATCH) throw new Error(`at most ${SNS_MAX_BATCH} entries per PublishBatch`);
    const topic = topicArn.slice(topicArn.lastIndexOf(':') + 1);
    const spans = items.map((item) => {
      // The row's own trace, whatever the caller's context: the relay polls untraced.
      const parent: Context = item.trace ? extractTrace(item.trace, ROOT_CONTEXT) : context.active();
      const span = tracer.startSpan(
        `publish ${topic}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            'messaging.system': 'aws_sns',
            'messaging.destination.name': topic,
            'messaging.operation.type': 'send',
            'messaging.operation.name': 'publish',
            'messaging.message.id': item.event.id,
            ...eventSpanAttributes(item.event),
          },
        },
        parent,
      );
      return { span, parent, carrier: injectTrace(trace.setSpan(parent, span)) };
    });
    // Entry ids must be unique and [A-Za-z0-9_-]{1,80}: the index is.
    const entries = items.map((item, i) => {
      const attributes = eventAttributes(
        item.event.type,
        { ...item.trace, ...spans[i]!.carrier },
        item.event.lane,
      );
      assertAttributeBudget(attributes);
      return {
        Id: String(i),
        Message: escapeForSqs(item.json ?? JSON.stringify(item.event)),
        MessageAttributes: attributes,
        MessageGroupId: messageGroupIdOfEvent(item.event),
      };
    });
    const result: PublishResult = { published: [], failed: [] };
    try {
      if (entries.length === 1) {
        const only = entries[0]!;
        // Untraced, like the batch: the AWS SDK instrumentation's span would
        // repeat the entry's, and its traceparent would replace the entry's.
        await untraced(() =>
          this.#sns.send(
            new PublishCommand({
              TopicArn: topicArn,
              Message: only.Message,
              MessageAttributes: only.MessageAttributes,
              MessageGroupId: only.MessageGroupId,
            }),
          ),
        );
        result.published.push(items[0]!.event.id);
      } else {
        const response = await untraced(() =>
          this.#sns.send(
            new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: entries }),
          ),
        );
        for (const ok of response.Successful ?? []) result.published.push(items[Number(ok.Id)]!.event.id);
        for (const bad of response.Failed ?? []) {
          result.failed.push({
            eventId: items[Number(bad.Id)]!.event.id,
            code: bad.Code ?? 'Unknown',
            message: bad.Message ?? '',
          });
        }
        const answered = new Set([...result.published, ...result.failed.map((f) => f.eventId)]);
        for (const item of items) {
          if (!answered.has(item.event.id)) {
            result.failed.push({
              eventId: item.event.id,
              code: 'NoResult',
              message: 'entry missing from response',
            });
          }
        }
      }
    } catch (error) {
      const err = error as Error;
      if (err.name === 'BatchRequestTooLong' && items.length > 1) {
        // The whole call was too large (AWS: 256 KiB): send the entries one by one.
        for (const span of spans) span.span.end();
        const single = await Promise.all(items.map((item) => this.publishBatch(topicArn, [item])));
        return {
          published: single.flatMap((r) => r.published),
          failed: single.flatMap((r) => r.failed),
        };
      }
      result.published = [];
      result.failed = items.map((item) => ({ eventId: item.event.id, code: err.name, message: err.message }));
    }
    const failedIds = new Set(result.failed.map((f) => f.eventId));
    items.forEach((item, i) => {
      const { span } = spans[i]!;
      if (failedIds.has(item.event.id))
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'publish failed' });
      span.end();
    });
    return result;
  }
}
