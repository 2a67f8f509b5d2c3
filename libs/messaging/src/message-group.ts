// A message's tenant, for the consumer's own fairness and as SQS's
// MessageGroupId (docs/fairness.md, "SQS fair queues"): one place for every
// Publish, PublishBatch, SendMessage and SendMessageBatch that carries an
// event (the relay's publishes, the consumer's re-sends and dead letters,
// `pnpm dlq retry`, `pnpm replay`), so that on AWS a message keeps its
// tenant's group whichever way it travels.
import type { Message } from '@aws-sdk/client-sqs';
import { decodeMessage } from './sqs/message.ts';

/**
 * The tenant of a message whose event names none (a system event, a body that
 * is not an event): the consumer's fairness counts them as one tenant, and
 * they are sent with this as their MessageGroupId.
 */
export const UNKNOWN_TENANT = '-';

/** What SQS and SNS take as a MessageGroupId: 1–128 of ASCII's letters, digits and punctuation. */
const MESSAGE_GROUP_ID = /^[\x21-\x7e]{1,128}$/;

/** An event's `data.tenantId` (1–128 characters), or UNKNOWN_TENANT. Never throws. */
export function tenantOfEvent(event: unknown): string {
  const tenant = (event as { data?: { tenantId?: unknown } } | null | undefined)?.data?.tenantId;
  return typeof tenant === 'string' && tenant.length > 0 && tenant.length <= 128 ? tenant : UNKNOWN_TENANT;
}

/** The tenant of an event's JSON text, or UNKNOWN_TENANT (not JSON, no tenant). Never throws. */
export function tenantOfBody(body: string): string {
  try {
    return tenantOfEvent(JSON.parse(body));
  } catch {
    return UNKNOWN_TENANT;
  }
}

/**
 * The MessageGroupId a message is sent or published with: its tenant. A
 * message without one, or with one SQS would refuse as a group (a space, more
 * than 128 characters), goes in the group UNKNOWN_TENANT rather than without
 * a group: on an AWS fair queue a message without a group is a tenant of its
 * own, which would never be held back however many of them there are.
 */
export function messageGroupIdOf(tenant: string): string {
  return MESSAGE_GROUP_ID.test(tenant) ? tenant : UNKNOWN_TENANT;
}

/** The group of an event about to be published or sent (an outbox row's, a logged one's). */
export function messageGroupIdOfEvent(event: unknown): string {
  return messageGroupIdOf(tenantOfEvent(event));
}

/**
 * The group of a received message sent on (re-sent to its queue, to its DLQ,
 * from the DLQ back): the group it came with when SQS returned one (a receive
 * asking for the `MessageGroupId` system attribute, on AWS), else its event's
 * tenant (raw or inside an SNS envelope), else UNKNOWN_TENANT.
 */
export function messageGroupIdOfReceived(received: { body: string; messageGroupId?: string }): string {
  const own = received.messageGroupId;
  if (own !== undefined && MESSAGE_GROUP_ID.test(own)) return own;
  return messageGroupIdOf(tenantOfBody(received.body));
}

/** messageGroupIdOfReceived for a message as ReceiveMessage returned it. */
export function messageGroupIdOfMessage(message: Message): string {
  return messageGroupIdOfReceived(decodeMessage(message));
}
