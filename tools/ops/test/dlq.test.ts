import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import { deadLetterDepths, peekDeadLetters, redriveDeadLetters } from '@hireflow/ops';
import { type RecordedCall, recordCommands, type TestAws, testAws, testTopology } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('dead letters: depth, list, redrive', () => {
  let aws: TestAws;
  let calls: RecordedCall[];
  beforeAll(() => {
    aws = testAws();
    calls = recordCommands(aws.sqs);
  });
  afterAll(() => aws.close());

  it('reports depth, lists without consuming, and redrives back to the source queue without the reason and counts', async () => {
    const provisioned = await testTopology(aws, 'dlq');
    const inbox = provisioned.queues['jobs-inbox']!;
    // Two of a tenant's events and a body naming no tenant.
    const tenantId = randomUUID();
    const bodies = [{ n: 0, data: { tenantId } }, { n: 1, data: { tenantId } }, { n: 2 }];
    for (let i = 0; i < 3; i++) {
      await aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: inbox.dlq.url,
          MessageBody: JSON.stringify(bodies[i]),
          MessageAttributes: {
            type: { DataType: 'String', StringValue: 'job.matched.v1' },
            'dead-letter-reason': { DataType: 'String', StringValue: 'handler failed 5 times' },
            'failed-count': { DataType: 'Number', StringValue: '8' },
            'deferred-count': { DataType: 'Number', StringValue: '3' },
            'first-seen-at': { DataType: 'Number', StringValue: '1000' },
            'deferred-ms': { DataType: 'Number', StringValue: '3600000' },
          },
        }),
      );
    }
    const depths = await deadLetterDepths(aws.sqs, topology, provisioned.prefix);
    expect(depths.find((d) => d.queue === inbox.name)?.depth).toBe(3);
    expect(depths.filter((d) => d.queue !== inbox.name).every((d) => d.depth === 0)).toBe(true);

    const listed = await peekDeadLetters(aws.sqs, inbox.dlq.url, 10);
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({ type: 'job.matched.v1', reason: 'handler failed 5 times' });

    // Listing left them in place, visible again at once: a redrive right after finds all three.
    const moved = await redriveDeadLetters(aws.sqs, { dlqUrl: inbox.dlq.url, queueUrl: inbox.url });
    expect(moved).toBe(3);
    // Each goes back with its tenant as MessageGroupId (AWS's fair queues; fauxqs takes it and drops it),
    // the one without a tenant in the group "-".
    const redriven = calls.filter(
      (c) => c.name === 'SendMessageBatchCommand' && c.input.QueueUrl === inbox.url,
    );
    const groups = redriven.flatMap((c) =>
      (c.input.Entries as { MessageBody: string; MessageGroupId?: string }[]).map((e) => [
        JSON.parse(e.MessageBody).n,
        e.MessageGroupId,
      ]),
    );
    expect(groups.sort()).toEqual([
      [0, tenantId],
      [1, tenantId],
      [2, '-'],
    ]);

    const back = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: inbox.url,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(back.Messages).toHaveLength(3);
    for (const m of back.Messages ?? []) {
      expect(m.MessageAttributes?.type?.StringValue).toBe('job.matched.v1');
      // A redriven message starts with a clean slate: whole attempts and wait again.
      expect(Object.keys(m.MessageAttributes ?? {})).toEqual(['type']);
    }
    expect(
      (await deadLetterDepths(aws.sqs, topology, provisioned.prefix)).find((d) => d.queue === inbox.name)
        ?.depth,
    ).toBe(0);
  }, 60_000);
});
