import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createEvent } from '@hireflow/contracts';
import { type TestAws, testAws, testTopology } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnsPublisher } from '../src/index.ts';
import { jobPosted, receiveCount } from './helpers.ts';

let aws: TestAws;

beforeAll(() => {
  aws = testAws();
});
afterAll(() => aws.close());

describe('SNS fan-out through the topology', () => {
  it('delivers an event to every subscribed queue and only those whose filter matches', async () => {
    const topo = await testTopology(aws, 'fanout');
    const publisher = new SnsPublisher(aws.sns);
    const posted = jobPosted();
    await publisher.publish(topo.topics['jobs-events']!.arn, posted);

    // job.posted.v1 → matching-inbox and notifications-inbox (filter on `type`).
    for (const queue of ['matching-inbox', 'notifications-inbox']) {
      const [message] = await receiveCount(aws.sqs, topo.queues[queue]!.url, 1);
      expect(JSON.parse(message!.Body!), queue).toEqual(posted);
      expect(message!.MessageAttributes?.type?.StringValue).toBe('job.posted.v1');
    }

    // media-inbox subscribes to jobs-events too, but only to apikey.* and the
    // owners of uploads (job.posted.v1, candidate.registered.v1): it receives
    // the posting and the apikey event, never matching's event.
    const keyId = randomUUID();
    const issued = createEvent(
      'apikey.issued.v1',
      { keyId, tenantId: randomUUID(), keyHash: 'a'.repeat(64), issuedAt: new Date().toISOString() },
      { source: 'hireflow/jobs', subject: keyId },
    );
    const found = createEvent(
      'match.found.v1',
      {
        matchId: randomUUID(),
        jobId: posted.data.jobId,
        candidateId: randomUUID(),
        tenantId: posted.data.tenantId,
        score: 0.9,
      },
      { source: 'hireflow/matching' },
    );
    await publisher.publishBatch(topo.topics['jobs-events']!.arn, [{ event: issued }]);
    await publisher.publish(topo.topics['matching-events']!.arn, found);
    const media = await receiveCount(aws.sqs, topo.queues['media-inbox']!.url, 2);
    expect(media.map((m) => JSON.parse(m.Body!).type).sort()).toEqual(['apikey.issued.v1', 'job.posted.v1']);
    // jobs-inbox does not subscribe to jobs-events at all: it only sees match.found.v1.
    const jobs = await receiveCount(aws.sqs, topo.queues['jobs-inbox']!.url, 1);
    expect(jobs.map((m) => JSON.parse(m.Body!).type)).toEqual(['match.found.v1']);
    // notifications-inbox subscribes to matching-events too.
    const notifications = await receiveCount(aws.sqs, topo.queues['notifications-inbox']!.url, 1);
    expect(notifications.map((m) => JSON.parse(m.Body!).type)).toEqual(['match.found.v1']);
  });

  it("routes each event to one lane's queue of each consumer by its `lane` attribute (docs/fairness.md)", async () => {
    const topo = await testTopology(aws, 'fanout-lanes');
    const publisher = new SnsPublisher(aws.sns);
    const bulk = { ...jobPosted(), lane: 'bulk' as const };
    const interactive = jobPosted();
    // The bulk event first: each interactive queue's first message is the interactive one
    // only if the bulk event went elsewhere (the emulator delivers in publish order).
    await publisher.publishBatch(topo.topics['jobs-events']!.arn, [{ event: bulk }]);
    await publisher.publish(topo.topics['jobs-events']!.arn, interactive);
    for (const inbox of ['matching-inbox', 'notifications-inbox', 'media-inbox']) {
      const [first] = await receiveCount(aws.sqs, topo.queues[inbox]!.url, 1);
      expect(JSON.parse(first!.Body!).id, inbox).toBe(interactive.id);
      const [queued] = await receiveCount(aws.sqs, topo.queues[`${inbox}-bulk`]!.url, 1);
      expect(JSON.parse(queued!.Body!).id, `${inbox}-bulk`).toBe(bulk.id);
      expect(queued!.MessageAttributes?.lane?.StringValue).toBe('bulk');
    }
    // Nothing else in either lane: each event went to exactly one of them.
    for (const inbox of ['matching-inbox', 'notifications-inbox']) {
      const left = await Promise.all(
        [inbox, `${inbox}-bulk`].map((q) =>
          aws.sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: topo.queues[q]!.url,
              AttributeNames: ['ApproximateNumberOfMessages'],
            }),
          ),
        ),
      );
      expect(left.map((r) => r.Attributes?.ApproximateNumberOfMessages)).toEqual(['0', '0']);
    }
  });

  it('publishes up to 10 entries per PublishBatch with the type attribute on each', async () => {
    const topo = await testTopology(aws, 'fanout-batch');
    const publisher = new SnsPublisher(aws.sns);
    const events = Array.from({ length: 10 }, () => jobPosted());
    const result = await publisher.publishBatch(
      topo.topics['jobs-events']!.arn,
      events.map((event) => ({ event })),
    );
    expect(result.failed).toEqual([]);
    expect(result.published.sort()).toEqual(events.map((e) => e.id).sort());
    const received = await receiveCount(aws.sqs, topo.queues['matching-inbox']!.url, 10);
    expect(received).toHaveLength(10);
    for (const message of received)
      expect(message.MessageAttributes?.type?.StringValue).toBe('job.posted.v1');
    await expect(
      publisher.publishBatch(
        topo.topics['jobs-events']!.arn,
        [...events, jobPosted()].map((event) => ({ event })),
      ),
    ).rejects.toThrow(/at most 10/);
  });
});
