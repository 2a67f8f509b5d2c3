import type { Message } from '@aws-sdk/client-sqs';
import { testTopology } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { deferMessage } from '../src/index.ts';
import { jobClosed, smallTopology, useAws } from './helpers.ts';

const env = useAws();
const HOUR = 3_600_000;

describe('deferMessage near the end of its bound', () => {
  it('cuts the last wait to the time left instead of dead-lettering early, and dead-letters once the bound is used', async () => {
    const topo = await testTopology(env.aws, 'defer-bound', smallTopology());
    const queue = topo.queues.inbox!;
    const target = { queueUrl: queue.url, dlqUrl: queue.dlq.url };
    const firstSeen = Date.now() - 59 * 60_000;
    const message: Message = {
      MessageId: 'm-1',
      ReceiptHandle: 'handle-1',
      Body: JSON.stringify(jobClosed()),
      MessageAttributes: {
        'first-seen-at': { DataType: 'Number', StringValue: String(firstSeen) },
        'deferred-count': { DataType: 'Number', StringValue: '7' },
      },
    };
    const sent = env.calls.length;
    const early = await deferMessage(env.aws.sqs, target, message, {
      delayMs: 5 * 60_000,
      reason: 'waiting for the candidate',
      maxDeferMs: HOUR,
      now: firstSeen + 59 * 60_000,
    });
    expect(early.outcome).toBe('deferred');
    const resend = env.calls.slice(sent).find((c) => c.name === 'SendMessageCommand')?.input as
      | { DelaySeconds?: number }
      | undefined;
    expect(resend?.DelaySeconds).toBeLessThanOrEqual(60);
    expect(resend?.DelaySeconds).toBeGreaterThan(0);

    const late = await deferMessage(env.aws.sqs, target, message, {
      delayMs: 5 * 60_000,
      reason: 'waiting for the candidate',
      maxDeferMs: HOUR,
      now: firstSeen + HOUR,
    });
    expect(late.outcome).toBe('dead-lettered');
    expect(late.reason).toContain('waiting for the candidate');
  });
});

describe('deferMessage after a backlog', () => {
  it('counts the wait from the first time a consumer looked at the message, not from when it was sent', async () => {
    const topo = await testTopology(env.aws, 'defer-backlog', smallTopology());
    const queue = topo.queues.inbox!;
    const target = { queueUrl: queue.url, dlqUrl: queue.dlq.url };
    const now = Date.now();
    // Sent two hours ago (a consumer outage), deferred for the first time now.
    const message: Message = {
      MessageId: 'm-2',
      ReceiptHandle: 'handle-2',
      Body: JSON.stringify(jobClosed()),
      Attributes: { SentTimestamp: String(now - 2 * HOUR) },
      MessageAttributes: {},
    };
    const sent = env.calls.length;
    const first = await deferMessage(env.aws.sqs, target, message, {
      delayMs: 5000,
      reason: 'waiting for the candidate',
      maxDeferMs: HOUR,
      now,
    });
    expect(first.outcome).toBe('deferred');
    const resend = env.calls.slice(sent).find((c) => c.name === 'SendMessageCommand')?.input as {
      MessageAttributes: Record<string, { StringValue: string }>;
    };
    expect(Number(resend.MessageAttributes['first-seen-at']!.StringValue)).toBe(now);
    expect(resend.MessageAttributes['deferred-count']!.StringValue).toBe('1');
  });
});
