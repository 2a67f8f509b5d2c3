import { topology } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { planReplay, ReplayInputError } from './plan.ts';

describe('planReplay', () => {
  it('takes every type the queue subscribes to, grouped by producer, upstream first', () => {
    expect(planReplay(topology, { queue: 'notifications-inbox' })).toEqual({
      queue: 'notifications-inbox',
      types: [
        'job.posted.v1',
        'candidate.registered.v1',
        'webhook.endpoint.disabled.v1',
        'match.found.v1',
        'job.matched.v1',
      ],
      sources: [
        {
          producer: 'jobs',
          types: ['job.posted.v1', 'candidate.registered.v1', 'webhook.endpoint.disabled.v1'],
        },
        { producer: 'matching', types: ['match.found.v1', 'job.matched.v1'] },
      ],
    });
    expect(planReplay(topology, { queue: 'jobs-inbox' }).sources.map((s) => s.producer)).toEqual([
      // jobs' own events come back for its webhooks (docs/webhooks.md).
      'jobs',
      'matching',
      'media',
    ]);
  });

  it('narrows to the types asked for', () => {
    expect(planReplay(topology, { queue: 'media-inbox', types: ['apikey.revoked.v1'] })).toEqual({
      queue: 'media-inbox',
      types: ['apikey.revoked.v1'],
      sources: [{ producer: 'jobs', types: ['apikey.revoked.v1'] }],
    });
  });

  it('refuses an unknown queue, an unknown type, and a type the queue does not take', () => {
    expect(() => planReplay(topology, { queue: 'jobs-events' })).toThrow(
      /--to: "jobs-events" is not a queue of the topology \(queues: jobs-inbox, /,
    );
    expect(() => planReplay(topology, { queue: 'media-inbox', types: ['apikey.issued.v2'] })).toThrow(
      '--types: apikey.issued.v2 is not in the event catalog',
    );
    expect(() => planReplay(topology, { queue: 'media-inbox', types: ['job.closed.v1'] })).toThrow(
      ReplayInputError,
    );
    expect(() => planReplay(topology, { queue: 'media-inbox', types: ['job.closed.v1'] })).toThrow(
      'media-inbox does not subscribe to job.closed.v1: its consumer would dead-letter it (it takes apikey.issued.v1, apikey.revoked.v1, job.posted.v1, candidate.registered.v1)',
    );
  });
});
