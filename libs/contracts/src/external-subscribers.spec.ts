import { describe, expect, it } from 'vitest';
import { externalSubscriberTopology, parseExternalSubscribers } from './external-subscribers.ts';
import { topology } from './topology.ts';

describe('external subscribers', () => {
  it('get a topology of their own: the topics carrying their types, one inbox filtered on them', () => {
    const own = externalSubscriberTopology({
      name: 'analytics',
      events: ['job.posted.v1', 'media.failed.v1'],
    });
    expect(Object.keys(own.topics)).toEqual(['jobs-events', 'media-events']);
    expect(own.queues).toEqual({
      'analytics-inbox': {
        consumer: 'analytics',
        subscriptions: [
          { topic: 'jobs-events', types: ['job.posted.v1'] },
          { topic: 'media-events', types: ['media.failed.v1'] },
        ],
        visibilityTimeoutSeconds: 30,
        maxReceiveCount: 12,
      },
    });
    expect(own.messageRetentionSeconds).toBe(topology.messageRetentionSeconds);
    expect(own.buckets).toBeUndefined();
  });

  it('are read from CDK context, each problem naming the subscriber and the field', () => {
    expect(
      parseExternalSubscribers('analytics:job.posted.v1,candidate.registered.v1;crm:job.closed.v1'),
    ).toEqual({
      subscribers: [
        { name: 'analytics', events: ['job.posted.v1', 'candidate.registered.v1'] },
        { name: 'crm', events: ['job.closed.v1'] },
      ],
      problems: [],
    });
    expect(parseExternalSubscribers('jobs:job.posted.v1;crm:;crm:job.nope.v1').problems).toEqual([
      'jobs: name: jobs is taken by Hireflow itself',
      'crm: events: name at least one event type',
      'crm: events: job.nope.v1 is not an event type of the catalog',
      'crm: name: crm is given twice',
    ]);
  });
});
