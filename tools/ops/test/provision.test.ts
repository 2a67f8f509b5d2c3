import { ListSubscriptionsByTopicCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import { provisionTopology } from '@hireflow/ops';
import { type TestAws, testAws, uniqueName } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('provisionTopology', () => {
  let aws: TestAws;
  beforeAll(() => {
    aws = testAws();
  });
  afterAll(() => aws.close());

  it('creates every topic, queue, DLQ and subscription of the definition', async () => {
    const prefix = `${uniqueName('prov')}-`;
    const result = await provisionTopology(topology, { sns: aws.sns, sqs: aws.sqs, prefix });

    expect(Object.keys(result.topics).sort()).toEqual(Object.keys(topology.topics).sort());
    expect(Object.keys(result.queues).sort()).toEqual(Object.keys(topology.queues).sort());
    for (const [name, def] of Object.entries(topology.queues)) {
      const q = result.queues[name]!;
      expect(q.name).toBe(prefix + name);
      expect(q.dlq.name).toBe(`${prefix}${name}-dlq`);
      const attrs = await aws.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['All'] }),
      );
      expect(JSON.parse(attrs.Attributes!.RedrivePolicy!)).toEqual({
        deadLetterTargetArn: q.dlq.arn,
        maxReceiveCount: def.maxReceiveCount,
      });
      expect(attrs.Attributes!.VisibilityTimeout).toBe(String(def.visibilityTimeoutSeconds));
    }
    const expectedSubs = Object.values(topology.queues).reduce((n, q) => n + q.subscriptions.length, 0);
    expect(result.subscriptions).toHaveLength(expectedSubs);
  });

  it('is idempotent: a second run yields the same topology, no duplicate subscriptions, tuned visibility kept', async () => {
    const prefix = `${uniqueName('idem')}-`;
    const first = await provisionTopology(topology, { sns: aws.sns, sqs: aws.sqs, prefix });
    // a consumer resized its visibility timeout from its measured p99
    const jobsInbox = first.queues['jobs-inbox']!;
    await aws.sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: jobsInbox.url, Attributes: { VisibilityTimeout: '77' } }),
    );

    const second = await provisionTopology(topology, { sns: aws.sns, sqs: aws.sqs, prefix });
    expect(second).toEqual(first);

    for (const topic of Object.values(second.topics)) {
      const subs = await aws.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic.arn }));
      const endpoints = (subs.Subscriptions ?? []).map((s) => s.Endpoint);
      expect(new Set(endpoints).size).toBe(endpoints.length);
    }
    const attrs = await aws.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: jobsInbox.url, AttributeNames: ['VisibilityTimeout'] }),
    );
    expect(attrs.Attributes!.VisibilityTimeout).toBe('77');
  });
});
