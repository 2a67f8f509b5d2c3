import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { dlqName, escapeForSqs, type Topology } from '@hireflow/contracts';
import { messageGroupIdOfMessage } from '@hireflow/messaging/message-group';

/**
 * Attributes dead-lettering, deferral and failed handling added: a redriven
 * message starts clean (with an old `deferred-ms` a deferred message would be
 * dead-lettered again at once for having waited too long, with an old
 * `failed-count` one failing message after its first new failure).
 */
const DEAD_LETTER_ATTRIBUTES = new Set([
  'dead-letter-reason',
  'deferred-count',
  'deferred-ms',
  'first-seen-at',
  'failed-count',
]);

export interface DeadLetterQueue {
  queue: string;
  dlq: string;
  dlqUrl: string;
  queueUrl: string;
  depth: number;
}

/** Every DLQ of the topology with its depth (any message in a DLQ is a bug report). */
export async function deadLetterDepths(
  sqs: SQSClient,
  topology: Topology,
  prefix: string,
): Promise<DeadLetterQueue[]> {
  const result: DeadLetterQueue[] = [];
  for (const name of Object.keys(topology.queues)) {
    const queueUrl = await queueUrlOf(sqs, prefix + name);
    const dlqUrl = await queueUrlOf(sqs, prefix + dlqName(name));
    // A deployment without this queue (a partial one, a test's own): nothing to report.
    if (!queueUrl || !dlqUrl) continue;
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: dlqUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const depth =
      Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(attrs.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    result.push({ queue: prefix + name, dlq: prefix + dlqName(name), dlqUrl, queueUrl, depth });
  }
  return result;
}

async function queueUrlOf(sqs: SQSClient, name: string): Promise<string | undefined> {
  try {
    return (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
  } catch (error) {
    if ((error as Error).name === 'QueueDoesNotExist') return undefined;
    throw error;
  }
}

export interface DeadLetterView {
  messageId: string;
  type: string | undefined;
  reason: string | undefined;
  receiveCount: number;
  body: string;
}

/**
 * Reads up to `max` dead letters without consuming them: each is received
 * (hidden while the rest are read, so none is read twice), then made visible
 * again at once, so a redrive right after a listing finds them all.
 */
export async function peekDeadLetters(sqs: SQSClient, dlqUrl: string, max = 10): Promise<DeadLetterView[]> {
  const seen = new Map<string, DeadLetterView>();
  const handles: string[] = [];
  try {
    await readDeadLetters(sqs, dlqUrl, max, seen, handles);
  } finally {
    for (let i = 0; i < handles.length; i += 10) {
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: dlqUrl,
          Entries: handles
            .slice(i, i + 10)
            .map((handle, j) => ({ Id: String(j), ReceiptHandle: handle, VisibilityTimeout: 0 })),
        }),
      );
    }
  }
  return [...seen.values()];
}

async function readDeadLetters(
  sqs: SQSClient,
  dlqUrl: string,
  max: number,
  seen: Map<string, DeadLetterView>,
  handles: string[],
): Promise<void> {
  while (seen.size < max) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - seen.size),
        VisibilityTimeout: 30,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    const messages = received.Messages ?? [];
    const fresh = messages.filter((m) => !seen.has(m.MessageId!));
    if (fresh.length === 0) break;
    for (const m of fresh) {
      handles.push(m.ReceiptHandle!);
      seen.set(m.MessageId!, {
        messageId: m.MessageId!,
        type: m.MessageAttributes?.type?.StringValue,
        reason: m.MessageAttributes?.['dead-letter-reason']?.StringValue,
        receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 0),
        body: m.Body ?? '',
      });
    }
  }
}

/**
 * Moves dead letters back to their source queue, body and attributes as they
 * were (minus the dead-letter reason) and their tenant's MessageGroupId
 * (the one the DLQ gave back, else the event's tenant): sent first, deleted from the DLQ only
 * once the source has them, so a crash in between duplicates (harmless: every
 * handler is idempotent) and never loses. fauxqs has no StartMessageMoveTask,
 * so this works the same on the emulator and on AWS.
 */
export async function redriveDeadLetters(
  sqs: SQSClient,
  from: { dlqUrl: string; queueUrl: string },
  max = Number.POSITIVE_INFINITY,
): Promise<number> {
  let moved = 0;
  while (moved < max) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: from.dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - moved),
        VisibilityTimeout: 60,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) break;
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: from.queueUrl,
        Entries: messages.map((m, i) => ({
          Id: String(i),
          MessageBody: escapeForSqs(m.Body ?? ''),
          MessageAttributes: cleanAttributes(m),
          MessageGroupId: messageGroupIdOfMessage(m),
        })),
      }),
    );
    const ok = new Set((sent.Successful ?? []).map((s) => Number(s.Id)));
    const done = messages.filter((_, i) => ok.has(i));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: from.dlqUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    moved += done.length;
    if (done.length < messages.length) {
      throw new Error(
        `redrive: ${messages.length - done.length} messages could not be sent back; they stay in the DLQ`,
      );
    }
  }
  return moved;
}

function cleanAttributes(message: Message): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    if (DEAD_LETTER_ATTRIBUTES.has(name)) continue;
    attributes[name] =
      value.StringValue !== undefined
        ? { DataType: value.DataType, StringValue: value.StringValue }
        : { DataType: value.DataType, BinaryValue: value.BinaryValue };
  }
  return attributes;
}
