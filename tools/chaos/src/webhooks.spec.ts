import { describe, expect, it } from 'vitest';
import {
  countWebhooks,
  ENDPOINT_TYPES,
  factOf,
  type WebhookArrival,
  type WebhookRow,
  webhookProblems,
} from './webhooks.ts';

const body = (type: string, data: Record<string, unknown>) => JSON.stringify({ type, timestamp: 't', data });
const arrival = (
  endpoint: 'flaky' | 'slow',
  webhookId: string,
  fact: string,
  answered = 204,
): WebhookArrival => ({ endpoint, webhookId, fact, answered, at: 0 });
const row = (endpoint: 'flaky' | 'slow', webhookId: string, eventId: string, fact: string): WebhookRow => ({
  endpoint,
  webhookId,
  eventId,
  fact,
  status: 'delivered',
});

describe('factOf', () => {
  it('names what a delivery is about: a candidate, an upload (ready or failed), a close, one computation', () => {
    expect(factOf(body('candidate.registered', { candidateId: 'c1' }))).toBe('candidate:c1');
    expect(factOf(body('upload.ready', { uploadId: 'u1' }))).toBe('upload:u1');
    expect(factOf(body('upload.failed', { uploadId: 'u1', reason: 'x' }))).toBe('upload:u1');
    expect(factOf(body('posting.closed', { jobId: 'j1' }))).toBe('closed:j1');
    expect(factOf(body('posting.matched', { jobId: 'j1', computedAt: 'T1' }))).toBe('matched:j1@T1');
    expect(factOf('not json')).toBe('unreadable');
  });
});

describe('countWebhooks', () => {
  const rows = [
    row('flaky', 'msg_a', 'e1', 'candidate:c1'),
    row('slow', 'msg_b', 'e1', 'candidate:c1'),
    row('flaky', 'msg_c', 'e2', 'matched:j1@T1'),
    row('slow', 'msg_d', 'e2', 'matched:j1@T1'),
  ];

  it('counts nothing lost when each expected fact got a 2xx at each endpoint, retries of one id being no copy', () => {
    const count = countWebhooks({
      rows,
      expectedFacts: ['candidate:c1'],
      arrivals: [
        arrival('flaky', 'msg_a', 'candidate:c1', 500),
        arrival('flaky', 'msg_a', 'candidate:c1', 0),
        arrival('flaky', 'msg_a', 'candidate:c1'),
        arrival('slow', 'msg_b', 'candidate:c1'),
        arrival('flaky', 'msg_c', 'matched:j1@T1'),
        arrival('slow', 'msg_d', 'matched:j1@T1'),
      ],
    });
    expect(count).toMatchObject({
      expected: 4,
      delivered: 4,
      lost: 0,
      sameIdCopies: 0,
      differentIdCopies: 0,
      failedAttempts: 2,
    });
    expect(count.byEndpoint.flaky).toEqual({ expected: 2, delivered: 2, requests: 4 });
    expect(webhookProblems(count)).toEqual([]);
  });

  it('counts a fact the history expects but no endpoint answered 2xx as lost, at each endpoint', () => {
    const count = countWebhooks({
      rows,
      // u1 was accepted but no delivery row was ever made: lost at both endpoints.
      expectedFacts: ['candidate:c1', 'upload:u1'],
      arrivals: [
        arrival('flaky', 'msg_a', 'candidate:c1', 500), // only a failed attempt: lost
        arrival('slow', 'msg_b', 'candidate:c1'),
        arrival('flaky', 'msg_c', 'matched:j1@T1'),
        arrival('slow', 'msg_d', 'matched:j1@T1'),
      ],
    });
    expect(count.lost).toBe(3);
    expect(count.lostList.sort()).toEqual(['flaky candidate:c1', 'flaky upload:u1', 'slow upload:u1']);
    expect(webhookProblems(count)[0]).toMatch(/^3 lost webhook deliveries/);
  });

  it('expects a candidate the history accepted at the flaky endpoint only: the slow one does not subscribe to candidates', () => {
    const count = countWebhooks({
      rows: [],
      expectedFacts: ['candidate:c9', 'upload:u9'],
      arrivals: [arrival('flaky', 'msg_x', 'candidate:c9'), arrival('flaky', 'msg_y', 'upload:u9')],
    });
    expect(count.byEndpoint.flaky).toEqual({ expected: 2, delivered: 2, requests: 2 });
    expect(count.byEndpoint.slow).toEqual({ expected: 1, delivered: 0, requests: 0 });
    expect(count.lostList).toEqual(['slow upload:u9']);
    expect(ENDPOINT_TYPES.slow).not.toContain('candidate.registered');
  });

  it('tells a redelivery under the same webhook-id from one event delivered under two ids', () => {
    const count = countWebhooks({
      rows: [...rows, row('flaky', 'msg_e', 'e3', 'candidate:c1')],
      expectedFacts: [],
      arrivals: [
        arrival('flaky', 'msg_a', 'candidate:c1'),
        arrival('flaky', 'msg_a', 'candidate:c1'), // the same delivery again after its 2xx: same id, fine
        arrival('flaky', 'msg_e', 'candidate:c1'), // a second event (new id) about c1: counted apart
        arrival('slow', 'msg_b', 'candidate:c1'),
        arrival('slow', 'msg_zz', 'candidate:c1'), // an id no row has: a delivery made outside the rows
        arrival('flaky', 'msg_c', 'matched:j1@T1'),
        arrival('slow', 'msg_d', 'matched:j1@T1'),
      ],
    });
    expect(count.sameIdCopies).toBe(1);
    expect(count.newEventCopies).toBe(2);
    expect(count.newEventCopiesByKind).toEqual({ candidate: 2 });
    expect(count.differentIdCopies).toBe(0);

    const twice = countWebhooks({
      rows: [...rows, { ...row('flaky', 'msg_f', 'e1', 'candidate:c1') }],
      expectedFacts: [],
      arrivals: [
        arrival('flaky', 'msg_a', 'candidate:c1'),
        arrival('flaky', 'msg_f', 'candidate:c1'), // event e1 again, under another id: a bug
        arrival('slow', 'msg_b', 'candidate:c1'),
        arrival('flaky', 'msg_c', 'matched:j1@T1'),
        arrival('slow', 'msg_d', 'matched:j1@T1'),
      ],
    });
    expect(twice.differentIdCopies).toBe(1);
    expect(webhookProblems(twice)).toEqual(['1 webhook copies of one event with a different webhook-id']);
  });
});
