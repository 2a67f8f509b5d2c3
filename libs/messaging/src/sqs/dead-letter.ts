import {
  DeleteMessageCommand,
  type Message,
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { escapeForSqs, toSqsText } from '@hireflow/contracts';
import { ATTR_DEAD_LETTER_REASON } from '../attributes.ts';
import { messageGroupIdOfMessage } from '../message-group.ts';

/** SQS keeps at most 10 message attributes. */
const SQS_MAX_ATTRIBUTES = 10;

export interface DeadLetterTarget {
  queueUrl: string;
  dlqUrl: string;
}

/**
 * Moves a message to the DLQ at once, with why: the body exactly as received
 * (so a redrive replays it), its attributes, and `dead-letter-reason`. The
 * source copy is deleted only after the DLQ has it; if the delete fails the
 * message comes back and is dead-lettered again, never lost. It keeps its
 * tenant's MessageGroupId (message-group.ts), which a redrive carries back.
 */
export async function deadLetter(
  sqs: SQSClient,
  target: DeadLetterTarget,
  message: Message,
  reason: string,
  /** Runs once the DLQ has it, before the delete (the consumer marks the message superseded). */
  afterSent?: () => Promise<void>,
): Promise<void> {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, attr] of Object.entries(message.MessageAttributes ?? {})) {
    if (name === ATTR_DEAD_LETTER_REASON || Object.keys(attributes).length >= SQS_MAX_ATTRIBUTES - 1)
      continue;
    attributes[name] =
      attr.StringValue !== undefined
        ? { DataType: attr.DataType, StringValue: attr.StringValue }
        : { DataType: attr.DataType, BinaryValue: attr.BinaryValue };
  }
  attributes[ATTR_DEAD_LETTER_REASON] = { DataType: 'String', StringValue: toSqsText(reason.slice(0, 1000)) };
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: target.dlqUrl,
      MessageBody: escapeForSqs(message.Body ?? ''),
      MessageAttributes: attributes,
      MessageGroupId: messageGroupIdOfMessage(message),
    }),
  );
  await afterSent?.();
  await sqs.send(
    new DeleteMessageCommand({ QueueUrl: target.queueUrl, ReceiptHandle: message.ReceiptHandle }),
  );
}
