import { describe, expect, it } from 'vitest';
import type { EventType } from './events.ts';
import {
  consumerPort,
  nextSubscriberPort,
  SUBSCRIBER_PORT_BASE,
  subscriberPort,
  subscriberProblems,
  subscriberQueue,
  subscriptionsFor,
} from './subscribers.ts';

const analytics = {
  name: 'analytics',
  events: ['job.posted.v1', 'match.found.v1'] as EventType[],
  port: 3101,
};

describe('subscribers', () => {
  it('subscribe to each topic that carries their types, filtered on them', () => {
    expect(subscriptionsFor(['job.posted.v1', 'match.found.v1', 'candidate.registered.v1'])).toEqual([
      { topic: 'jobs-events', types: ['job.posted.v1', 'candidate.registered.v1'] },
      { topic: 'matching-events', types: ['match.found.v1'] },
    ]);
    expect(subscriberQueue(analytics, { visibilityTimeoutSeconds: 30, maxReceiveCount: 10 })).toEqual({
      consumer: 'analytics',
      subscriptions: [
        { topic: 'jobs-events', types: ['job.posted.v1'] },
        { topic: 'matching-events', types: ['match.found.v1'] },
      ],
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 10,
    });
  });

  it('are refused with a reason per field: name, events, port', () => {
    expect(subscriberProblems(analytics, [])).toEqual([]);
    expect(subscriberProblems({ name: 'Bad_Name', events: [], port: 80 }, [])).toEqual([
      'name: must be 3–32 lowercase letters, digits and "-", starting with a letter (it names a folder, a database and a queue)',
      'events: name at least one event type',
      'port: must be a whole number between 1024 and 64535 (the admin port is port + 1000)',
    ]);
    expect(
      subscriberProblems(
        {
          name: 'matching',
          events: ['job.posted.v1', 'job.posted.v1', 'job.deleted.v9' as EventType],
          port: 3101,
        },
        [analytics],
      ),
    ).toEqual([
      'name: matching is taken by Hireflow itself',
      'events: job.deleted.v9 is not an event type of the catalog',
      'events: a type is repeated',
      'port: 3101 is taken by another subscriber',
    ]);
    expect(subscriberProblems({ ...analytics, port: 3102 }, [analytics])).toEqual([
      'name: a subscriber analytics is already registered',
    ]);
  });

  it('get ports from 3101 (admin 4101), shifted with the base like the services', () => {
    expect(nextSubscriberPort([])).toBe(SUBSCRIBER_PORT_BASE);
    expect(nextSubscriberPort([analytics, { ...analytics, port: 3105 }])).toBe(3106);
    expect(subscriberPort(analytics, 5001)).toBe(5101);
    expect(subscriberPort(analytics, 0)).toBe(0);
    expect(consumerPort('media')).toBe(3004);
    expect(consumerPort('jobs', 0)).toBe(0);
  });
});
