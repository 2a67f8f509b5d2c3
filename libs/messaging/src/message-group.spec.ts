// Every send that carries an event carries its tenant as MessageGroupId
// (docs/fairness.md, "SQS fair queues"): asserted on the SDK commands
// themselves, since fauxqs 2.4.1 accepts the field and drops it
// (test/message-group.test.ts shows the sends still succeed against it).

import type { SNSClient } from '@aws-sdk/client-sns';
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  messageGroupIdOf,
  messageGroupIdOfEvent,
  messageGroupIdOfMessage,
  tenantOfBody,
  UNKNOWN_TENANT,
} from './message-group.ts';
import { SnsPublisher } from './sns/publisher.ts';
import { deadLetter } from './sqs/dead-letter.ts';
import { deferMessage } from './sqs/defer.ts';
import { decodeMessage } from './sqs/message.ts';
import { resendMessage } from './sqs/resend.ts';

const TENANT = '5b7e0c1e-8f5e-4a59-9d2c-7a1f0f3b2c11';
const event = (tenantId?: unknown) => ({
  id: 'e-1',
  type: 'job.closed.v1',
  specversion: '1.0',
  source: 'hireflow/jobs',
  time: '2026-12-02T00:00:00.000Z',
  datacontenttype: 'application/json',
  data: {
    jobId: 'j-1',
    closedAt: '2026-12-02T00:00:00.000Z',
    ...(tenantId === undefined ? {} : { tenantId }),
  },
});

/** A client that records each command's input and answers every entry of a batch as sent. */
function fakeClient(): {
  client: SQSClient & SNSClient;
  sent: { name: string; input: Record<string, unknown> }[];
} {
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      const entries = (command.input.PublishBatchRequestEntries ?? []) as { Id: string }[];
      return { Successful: entries.map((e) => ({ Id: e.Id })) };
    },
  };
  return { client: client as unknown as SQSClient & SNSClient, sent };
}

const raw = (body: string, attributes: Message['Attributes'] = {}): Message => ({
  MessageId: 'm-1',
  ReceiptHandle: 'r-1',
  Body: body,
  Attributes: attributes,
  MessageAttributes: { type: { DataType: 'String', StringValue: 'job.closed.v1' } },
});
const enveloped = (body: string): Message =>
  raw(
    JSON.stringify({
      Type: 'Notification',
      Message: body,
      MessageAttributes: { type: { Type: 'String', Value: 'job.closed.v1' } },
    }),
  );
const target = { queueUrl: 'http://sqs/q', dlqUrl: 'http://sqs/q-dlq' };

describe('the tenant and the MessageGroupId of a message', () => {
  it("is the event's data.tenantId, from an event, its JSON, a raw delivery or an SNS envelope", () => {
    const body = JSON.stringify(event(TENANT));
    expect(tenantOfBody(body)).toBe(TENANT);
    expect(messageGroupIdOfEvent(event(TENANT))).toBe(TENANT);
    expect(messageGroupIdOfMessage(raw(body))).toBe(TENANT);
    expect(messageGroupIdOfMessage(enveloped(body))).toBe(TENANT);
  });

  it('keeps the group a received message came with (AWS returns it when asked), over the body', () => {
    expect(messageGroupIdOfMessage(raw(JSON.stringify(event(TENANT)), { MessageGroupId: 'sent-as' }))).toBe(
      'sent-as',
    );
    // One SQS would refuse is not carried on: the body's tenant is.
    expect(messageGroupIdOfMessage(raw(JSON.stringify(event(TENANT)), { MessageGroupId: 'a b' }))).toBe(
      TENANT,
    );
  });

  it('puts a message without a usable tenant in the group "-", never without a group', () => {
    expect(UNKNOWN_TENANT).toBe('-');
    expect(tenantOfBody('not json')).toBe(UNKNOWN_TENANT);
    expect(tenantOfBody('null')).toBe(UNKNOWN_TENANT);
    expect(tenantOfBody(JSON.stringify({ data: { tenantId: 42 } }))).toBe(UNKNOWN_TENANT);
    expect(messageGroupIdOfEvent(event())).toBe('-');
    expect(messageGroupIdOfEvent(event(''))).toBe('-');
    expect(messageGroupIdOfEvent(null)).toBe('-');
    // A tenant SQS would refuse as a group (a space, non-ASCII, over 128 characters): "-".
    expect(messageGroupIdOfEvent(event('tenant with spaces'))).toBe('-');
    expect(messageGroupIdOfEvent(event('é'))).toBe('-');
    expect(messageGroupIdOf('x'.repeat(129))).toBe('-');
    expect(messageGroupIdOf('x'.repeat(128))).toBe('x'.repeat(128));
    expect(messageGroupIdOfMessage(raw('{"not": json'))).toBe('-');
    expect(messageGroupIdOfMessage(raw(''))).toBe('-');
  });
});

describe('MessageGroupId on every send of an event', () => {
  it("a re-send (a failure's retry) carries the tenant, from a raw delivery or an SNS envelope", async () => {
    for (const message of [raw(JSON.stringify(event(TENANT))), enveloped(JSON.stringify(event(TENANT)))]) {
      const { client, sent } = fakeClient();
      await resendMessage(
        client,
        target.queueUrl,
        { decoded: decodeMessage(message), receiptHandle: 'r-1' },
        3,
        { 'failed-count': '1' },
      );
      expect(sent.map((c) => c.name)).toEqual(['SendMessageCommand', 'DeleteMessageCommand']);
      expect(sent[0]!.input).toMatchObject({
        QueueUrl: target.queueUrl,
        DelaySeconds: 3,
        MessageGroupId: TENANT,
      });
    }
  });

  it('a deferral carries the tenant, and so does the dead letter it ends in', async () => {
    const { client, sent } = fakeClient();
    const message = raw(JSON.stringify(event(TENANT)));
    await deferMessage(client, target, message, { delayMs: 5000, reason: 'waiting' });
    expect(sent[0]!.input).toMatchObject({ QueueUrl: target.queueUrl, MessageGroupId: TENANT });

    const spent = raw(JSON.stringify(event(TENANT)));
    spent.MessageAttributes!['deferred-ms'] = { DataType: 'Number', StringValue: String(2 * 3600_000) };
    const { client: client2, sent: sent2 } = fakeClient();
    const result = await deferMessage(client2, target, spent, { delayMs: 5000, reason: 'waiting' });
    expect(result.outcome).toBe('dead-lettered');
    expect(sent2[0]!.input).toMatchObject({ QueueUrl: target.dlqUrl, MessageGroupId: TENANT });
  });

  it('a dead letter carries the tenant; a poison body goes in "-"', async () => {
    const { client, sent } = fakeClient();
    await deadLetter(client, target, raw(JSON.stringify(event(TENANT))), 'handler failed');
    await deadLetter(client, target, raw('{"not": json'), 'not an event');
    const toDlq = sent.filter((c) => c.name === 'SendMessageCommand');
    expect(toDlq.map((c) => [c.input.QueueUrl, c.input.MessageGroupId])).toEqual([
      [target.dlqUrl, TENANT],
      [target.dlqUrl, '-'],
    ]);
  });

  it('a publish and a batch publish carry each event\'s tenant; a system event goes in "-"', async () => {
    const { client, sent } = fakeClient();
    const publisher = new SnsPublisher(client);
    await publisher.publishBatch('arn:aws:sns:eu-west-1:1:jobs-events', [{ event: event(TENANT) as never }]);
    await publisher.publishBatch('arn:aws:sns:eu-west-1:1:jobs-events', [
      { event: event('t-2') as never },
      { event: event() as never },
    ]);
    expect(sent[0]).toMatchObject({ name: 'PublishCommand', input: { MessageGroupId: TENANT } });
    expect(sent[1]!.name).toBe('PublishBatchCommand');
    const entries = sent[1]!.input.PublishBatchRequestEntries as { MessageGroupId?: string }[];
    expect(entries.map((e) => e.MessageGroupId)).toEqual(['t-2', '-']);
  });
});
