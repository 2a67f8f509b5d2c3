import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import { ATTR_DEFERRED_COUNT, ATTR_FAILED_COUNT } from '../attributes.ts';
import { TRACE_FIELDS, type TraceCarrier } from '../trace.ts';

/** A received message, whatever its delivery: raw (RawMessageDelivery) or inside an SNS envelope. */
export interface DecodedMessage {
  /** The CloudEvent JSON as published. */
  body: string;
  /** String message attributes: from SQS for raw delivery, from the envelope otherwise. */
  attributes: Record<string, string>;
  /** The attributes in SQS form, to re-send the message as it came (defer, dead-letter). */
  sqsAttributes: Record<string, MessageAttributeValue>;
  trace: TraceCarrier;
  receiveCount: number;
  /** Waits (deferrals, retry-laters, unreachable dependencies) so far: its `deferred-count`, 0 at first. */
  deferredCount: number;
  /** Handler failures counted by consumers so far: its `failed-count`, 0 at first. */
  failedCount: number;
  /** When SQS first accepted the message (ms since epoch). */
  sentTimestamp: number | undefined;
  /** The group SQS returned it with (a receive asking for `MessageGroupId`; AWS's fair queues), if any. */
  messageGroupId: string | undefined;
}

interface SnsEnvelope {
  Type: 'Notification';
  Message: string;
  /** As the body's text has it: a malformed one may hold anything. */
  MessageAttributes?: Record<string, { Type?: unknown; Value?: unknown } | null>;
}

function snsEnvelope(body: string): SnsEnvelope | undefined {
  if (!body.startsWith('{') || !body.includes('"Notification"')) return undefined;
  try {
    const parsed = JSON.parse(body) as Partial<SnsEnvelope>;
    return parsed.Type === 'Notification' && typeof parsed.Message === 'string'
      ? (parsed as SnsEnvelope)
      : undefined;
  } catch {
    return undefined;
  }
}

export function decodeMessage(message: Message): DecodedMessage {
  const raw = message.Body ?? '';
  const envelope = snsEnvelope(raw);
  const sqsAttributes: Record<string, MessageAttributeValue> = {};
  if (envelope) {
    // The envelope is the body's text: an attribute that is not { Type, Value } (null, a
    // number) is skipped, so a malformed body is decoded and dead-lettered, never thrown here.
    for (const [name, attr] of Object.entries(envelope.MessageAttributes ?? {})) {
      if (attr && (attr.Type === 'String' || attr.Type === 'Number') && typeof attr.Value === 'string') {
        sqsAttributes[name] = { DataType: attr.Type, StringValue: attr.Value };
      }
    }
  } else {
    for (const [name, attr] of Object.entries(message.MessageAttributes ?? {})) {
      if (attr.StringValue !== undefined)
        sqsAttributes[name] = { DataType: attr.DataType, StringValue: attr.StringValue };
    }
  }
  const attributes = Object.fromEntries(Object.entries(sqsAttributes).map(([k, v]) => [k, v.StringValue!]));
  const trace: TraceCarrier = {};
  for (const field of TRACE_FIELDS) if (attributes[field]) trace[field] = attributes[field];
  const sent = Number(message.Attributes?.SentTimestamp);
  return {
    body: envelope ? envelope.Message : raw,
    attributes,
    sqsAttributes,
    trace,
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 1) || 1,
    deferredCount: Number(attributes[ATTR_DEFERRED_COUNT]) || 0,
    failedCount: Number(attributes[ATTR_FAILED_COUNT]) || 0,
    sentTimestamp: Number.isFinite(sent) && sent > 0 ? sent : undefined,
    messageGroupId: message.Attributes?.MessageGroupId,
  };
}
