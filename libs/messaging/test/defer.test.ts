import type { Message } from '@aws-sdk/client-sqs';
import { testTopology } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { deferMessage } from '../src/index.ts';
import { jobClosed, smallTopology, useAws } from './helpers.ts';

const env = useAws();
const HOUR = 3_600_000;

type Resent = { DelaySeconds?: number; MessageAttributes: Record<string, { StringValue: string }> };

function deferred(id: string, attributes: Record<string, string>, sentAgoMs = 0): Message {
  return {
    MessageId: id,
    ReceiptHandle: `handle-${id}`,
    Body: JSON.stringify(jobClosed()),
    Attributes: { SentTimestamp: String(Date.now() - sentAgoMs) },
    MessageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([k, v]) => [k, { DataType: 'Number', StringValue: v }]),
    ),
  };
}

describe('deferMessage near the end of its bound', () => {
  it('cuts the last wait to the time left instead of dead-lettering early, and dead-letters once the bound is used', async () => {
    const topo = await testTopology(env.aws, 'defer-bound', smallTopology());
    const queue = topo.queues.inbox!;
    const target = { queueUrl: queue.url, dlqUrl: queue.dlq.url };
    const sent = env.calls.length;
    const early = await deferMessage(
      env.aws.sqs,
      target,
      deferred('m-1', { 'deferred-count': '7', 'deferred-ms': String(59 * 60_000) }),
      { delayMs: 5 * 60_000, reason: 'waiting for the candidate', maxDeferMs: HOUR },
    );
    expect(early.outcome).toBe('deferred');
    const resend = env.calls.slice(sent).find((c) => c.name === 'SendMessageCommand')?.input as Resent;
    expect(resend.DelaySeconds).toBe(60);
    expect(resend.MessageAttributes['deferred-count']!.StringValue).toBe('8');
    expect(Number(resend.MessageAttributes['deferred-ms']!.StringValue)).toBe(HOUR);

    const late = await deferMessage(
      env.aws.sqs,
      target,
      deferred('m-2', { 'deferred-count': '8', 'deferred-ms': String(HOUR) }),
      { delayMs: 5 * 60_000, reason: 'waiting for the candidate', maxDeferMs: HOUR },
    );
    expect(late).toEqual({
      outcome: 'dead-lettered',
      reason: 'deferred 8 times over 3600 s: waiting for the candidate',
    });
  });

  it('counts every deferral toward the bound, one drawn at 0 s as a second, so the bound is always reached', async () => {
    const topo = await testTopology(env.aws, 'defer-zero', smallTopology());
    const queue = topo.queues.inbox!;
    const sent = env.calls.length;
    await deferMessage(
      env.aws.sqs,
      { queueUrl: queue.url, dlqUrl: queue.dlq.url },
      deferred('m-3', { 'deferred-count': '2', 'deferred-ms': '4000' }),
      { delayMs: 0, reason: 'dependency unavailable', maxDeferMs: HOUR },
    );
    const resend = env.calls.slice(sent).find((c) => c.name === 'SendMessageCommand')?.input as Resent;
    expect(resend.DelaySeconds).toBe(0);
    expect(resend.MessageAttributes['deferred-ms']!.StringValue).toBe('5000');
  });
});

describe('deferMessage after a backlog', () => {
  it('counts the time spent deferred, not the time since the first deferral: an hour in a backlog between two brief outages is not a wait', async () => {
    const topo = await testTopology(env.aws, 'defer-backlog', smallTopology());
    const queue = topo.queues.inbox!;
    const target = { queueUrl: queue.url, dlqUrl: queue.dlq.url };
    // The third soak's dead letters: deferred once (2 s) in a brief outage,
    // then ~4,035 s queued behind the load, then a second brief outage. An
    // earlier version's `first-seen-at` (the first deferral's time) rides along.
    const firstDeferral = Date.now() - 4_035_000;
    const sent = env.calls.length;
    const second = await deferMessage(
      env.aws.sqs,
      target,
      deferred(
        'm-4',
        { 'deferred-count': '1', 'deferred-ms': '2000', 'first-seen-at': String(firstDeferral) },
        4_040_000,
      ),
      { delayMs: 3000, reason: 'dependency unavailable: connect ECONNREFUSED', maxDeferMs: HOUR },
    );
    expect(second.outcome).toBe('deferred');
    const resend = env.calls.slice(sent).find((c) => c.name === 'SendMessageCommand')?.input as Resent;
    expect(resend.DelaySeconds).toBe(3);
    expect(resend.MessageAttributes['deferred-count']!.StringValue).toBe('2');
    expect(resend.MessageAttributes['deferred-ms']!.StringValue).toBe('5000');
    expect(resend.MessageAttributes['first-seen-at']).toBe(undefined);
  });

  it('starts a message deferred for the first time at zero, however long ago it was sent', async () => {
    const topo = await testTopology(env.aws, 'defer-first', smallTopology());
    const queue = topo.queues.inbox!;
    const sent = env.calls.length;
    const first = await deferMessage(
      env.aws.sqs,
      { queueUrl: queue.url, dlqUrl: queue.dlq.url },
      deferred('m-5', {}, 2 * HOUR),
      { delayMs: 5000, reason: 'waiting for the candidate', maxDeferMs: HOUR },
    );
    expect(first.outcome).toBe('deferred');
    const resend = env.calls.slice(sent).find((c) => c.name === 'SendMessageCommand')?.input as Resent;
    expect(resend.MessageAttributes['deferred-count']!.StringValue).toBe('1');
    expect(resend.MessageAttributes['deferred-ms']!.StringValue).toBe('5000');
  });
});
