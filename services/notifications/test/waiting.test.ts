import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { DEFAULT_MAX_ATTEMPTS } from '@hireflow/messaging';
import { peekDeadLetters } from '@hireflow/ops';
import { describe, expect, it } from 'vitest';
import {
  candidateRegistered,
  jobMatched,
  jobPosted,
  matchFound,
  sqsCall,
  useNotificationsHarness,
  waitForSent,
} from './harness.ts';

// Events arrive in any order. A match.found.v1 or job.matched.v1 naming a
// candidate or posting not seen yet waits for it by deferral (re-sent with a
// delay, DEPENDENCY_WAIT_*_MS = 1 s here), which costs no SQS receive.

const tenantId = randomUUID();

const h = useNotificationsHarness('notif-waiting');

const inbox = () => h.topology.queues['notifications-inbox']!;

describe('events that arrive before what they need', () => {
  it('sends the match email once its candidate arrives, long after its failures would have dead-lettered it', async () => {
    const posted = jobPosted(tenantId);
    await h.publish(posted);
    await h.spy.waitForHandled(posted.id);
    const candidate = candidateRegistered(tenantId);
    const match = matchFound(tenantId, posted.data.jobId, candidate.data.candidateId);
    await h.publish(match);

    // Failing instead, the match would have been dead-lettered after
    // DEFAULT_MAX_ATTEMPTS failures; deferred, it is still waiting after more than that.
    const waits = await h.spy.waitForCount(
      { eventId: match.id, outcome: 'deferred' },
      DEFAULT_MAX_ATTEMPTS + 1,
      30_000,
    );
    expect(waits.every((r) => r.receiveCount === 1)).toBe(true);
    expect(waits[0]!.reason).toBe(`waiting for candidate ${candidate.data.candidateId}`);

    await h.publish(candidate);
    const key = idempotencyKey('match-email', posted.data.jobId, candidate.data.candidateId);
    await waitForSent(h, [key]);
    await h.spy.waitForHandled(match.id);
    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect(h.smtp.byKey(key)[0]!.envelopeTo).toEqual([candidate.data.email]);
    expect(h.spy.all({ eventId: match.id }).map((r) => r.outcome)).not.toContain('dead-lettered');
    expect(h.spy.all({ eventId: match.id }).map((r) => r.outcome)).not.toContain('failed');
    const dead = await peekDeadLetters(h.deps.sqs, inbox().dlq.url);
    expect(dead.filter((d) => JSON.parse(d.body).id === match.id)).toEqual([]);
  }, 60_000);

  it('sends the posting summary once its job.posted.v1 arrives after the job.matched.v1', async () => {
    const posted = jobPosted(tenantId);
    const matched = jobMatched(tenantId, posted.data.jobId, 2);
    await h.publish(matched);
    await h.spy.waitForMessage({ eventId: matched.id, outcome: 'deferred' });
    await h.publish(posted);
    const key = idempotencyKey('job-matched', posted.data.jobId);
    await waitForSent(h, [key]);
    expect(h.smtp.byKey(key)[0]!.envelopeTo).toEqual([posted.data.contactEmail]);
  }, 30_000);

  it('dead-letters at once a match naming a candidate of another tenant (a bug, not a wait)', async () => {
    const posted = jobPosted(tenantId);
    const candidate = candidateRegistered(randomUUID());
    await Promise.all([h.publish(posted), h.publish(candidate)]);
    await Promise.all([h.spy.waitForHandled(posted.id), h.spy.waitForHandled(candidate.id)]);
    const match = matchFound(tenantId, posted.data.jobId, candidate.data.candidateId);
    await h.publish(match);
    const record = await h.spy.waitForDeadLettered({ eventId: match.id });
    expect(record.reason).toMatch(/^permanent failure: match .* another tenant$/);
    expect(
      await h.notification(idempotencyKey('match-email', posted.data.jobId, candidate.data.candidateId)),
    ).toBe(undefined);
  });

  it('dead-letters an event that waited longer than DEPENDENCY_WAIT_MAX_MS, saying what it waited for', async () => {
    const match = matchFound(tenantId, randomUUID(), randomUUID());
    // As the consumer would see it after two hours of deferrals (the default bound is one).
    await sqsCall('SendMessage', {
      QueueUrl: inbox().url,
      MessageBody: JSON.stringify(match),
      MessageAttributes: {
        type: { DataType: 'String', StringValue: match.type },
        'deferred-count': { DataType: 'Number', StringValue: '12' },
        'deferred-ms': { DataType: 'Number', StringValue: String(2 * 3600_000) },
      },
    });
    const record = await h.spy.waitForDeadLettered({ eventId: match.id });
    expect(record.reason).toMatch(
      new RegExp(
        `^deferred 12 times over 7200 s: waiting for candidate ${match.data.candidateId} and posting ${match.data.jobId}$`,
      ),
    );
    const dead = (await peekDeadLetters(h.deps.sqs, inbox().dlq.url)).find(
      (d) => JSON.parse(d.body).id === match.id,
    );
    expect(dead).toMatchObject({ type: 'match.found.v1', reason: record.reason });
  });
});
