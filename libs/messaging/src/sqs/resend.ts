import { DeleteMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { escapeForSqs } from '@hireflow/contracts';
import { messageGroupIdOfReceived } from '../message-group.ts';
import type { DecodedMessage } from './message.ts';

/** SQS's DelaySeconds maximum. */
export const MAX_DELAY_SECONDS = 900;

/**
 * Puts a received message back on its own queue as a new message, visible
 * after `delaySeconds` (clamped to 0–900), with its attributes and the given
 * numeric ones set, then deletes the received copy. The new copy starts at
 * receive count 1: a retry or a wait burns no receive toward the queue's
 * `maxReceiveCount`. The body is re-sent raw (an SNS envelope is unwrapped;
 * the consumer reads both forms), any character SQS cannot carry escaped
 * (escapeForSqs: an SNS envelope's Message may hold one raw). If the delete fails both copies stay: the
 * handlers are idempotent by event id, so that is a duplicate, never a loss.
 * The copy keeps its tenant's MessageGroupId (message-group.ts): on an AWS
 * fair queue a retry of a flooding tenant's event stays that tenant's.
 */
export async function resendMessage(
  sqs: SQSClient,
  queueUrl: string,
  received: { decoded: DecodedMessage; receiptHandle: string | undefined },
  delaySeconds: number,
  counters: Record<string, string>,
  /** Runs once the copy is sent, before the delete (the consumer marks the original superseded). */
  afterSent?: () => Promise<void>,
): Promise<void> {
  const { decoded, receiptHandle } = received;
  const attributes = { ...decoded.sqsAttributes };
  for (const [name, value] of Object.entries(counters)) {
    attributes[name] = { DataType: 'Number', StringValue: value };
  }
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: escapeForSqs(decoded.body),
      DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds))),
      MessageAttributes: attributes,
      MessageGroupId: messageGroupIdOfReceived(decoded),
    }),
  );
  await afterSent?.();
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
}
