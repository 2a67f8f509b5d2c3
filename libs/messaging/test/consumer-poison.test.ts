import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { escapeForSqs } from '@hireflow/contracts';
import { testTopology } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { DeferError, PermanentError, retryLater, SqsConsumer } from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobClosed, jobPosted, receiveCount, sendEvent, smallTopology, useAws } from './helpers.ts';

const env = useAws();

type ConsumerOptions = ConstructorParameters<typeof SqsConsumer>[0];

async function harness(
  label: string,
  handlers: ConsumerOptions['handlers'],
  options: Pick<ConsumerOptions, 'maxDeferMs' | 'fairness'> = {},
) {
  const topo = await testTopology(env.aws, label, smallTopology());
  const queue = topo.queues.inbox!;
  const spy = new HandlerSpy();
  const consumer = new SqsConsumer({
    sqs: env.aws.sqs,
    queue,
    waitTimeSeconds: 1,
    onMessage: spy.observer,
    handlers,
    ...options,
  });
  await consumer.start();
  return { queue, spy, consumer };
}

/** A handler that throws `error` on its first run and handles the copy: what was reported and re-sent. */
async function firstRunThrows(label: string, error: Error) {
  let runs = 0;
  const { queue, spy, consumer } = await harness(label, {
    'job.closed.v1': () => {
      runs += 1;
      if (runs === 1) throw error;
    },
  });
  const event = jobClosed();
  try {
    await sendEvent(env.aws.sqs, queue.url, event);
    await spy.waitForHandled(event.id, 20_000);
  } finally {
    await consumer.close();
  }
  const resent = env.calls.filter(
    (c) =>
      c.name === 'SendMessageCommand' && c.input.QueueUrl === queue.url && c.input.DelaySeconds !== undefined,
  );
  return { queue, records: spy.all({ eventId: event.id }), resent };
}

describe('SQS consumer: poison and typed outcomes', () => {
  it('dead-letters an injected event holding a character SQS cannot carry (sent escaped), naming the field', async () => {
    let ran = 0;
    const { queue, consumer } = await harness('poison-charset', {
      'job.posted.v1': () => {
        ran += 1;
      },
    });
    try {
      const event = jobPosted();
      const injected = { ...event, data: { ...event.data, description: 'Build things\uffff' } };
      // Escaped as a JSON text may carry it (SQS refuses it raw): the same event once parsed.
      const body = escapeForSqs(JSON.stringify(injected));
      await env.aws.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
      const [dead] = await receiveCount(env.aws.sqs, queue.dlq.url, 1, 20_000);
      expect(dead!.MessageAttributes?.['dead-letter-reason']?.StringValue).toMatch(
        /^invalid event job\.posted\.v1: data\.description: must contain only characters a message can carry/,
      );
      expect(JSON.parse(dead!.Body!)).toEqual(injected);
      expect(ran).toBe(0);
    } finally {
      await consumer.close();
    }
  });

  it('dead-letters a malformed body and an unknown type at once, with a reason, never retried', async () => {
    const { queue, spy, consumer } = await harness('poison', { 'job.closed.v1': () => undefined });
    try {
      await env.aws.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: '{"not": json' }));
      const unknown = { ...jobClosed(), type: 'job.exploded.v1' };
      await env.aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: queue.url,
          MessageBody: JSON.stringify(unknown),
          MessageAttributes: { type: { DataType: 'String', StringValue: 'job.exploded.v1' } },
        }),
      );
      const invalidData = { ...jobClosed(), data: { jobId: 'nope' } };
      await env.aws.sqs.send(
        new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify(invalidData) }),
      );

      const dlq = await receiveCount(env.aws.sqs, queue.dlq.url, 3, 20_000);
      expect(dlq).toHaveLength(3);
      const reasons = dlq.map((m) => m.MessageAttributes?.['dead-letter-reason']?.StringValue ?? '');
      expect(reasons).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^invalid event job\.closed\.v1: data\.jobId/),
          expect.stringMatching(/^invalid event: \(root\): not JSON/),
          expect.stringMatching(
            /^invalid event job\.exploded\.v1: type: unknown event type "job\.exploded\.v1"/,
          ),
        ]),
      );
      const bodies = dlq.map((m) => m.Body);
      expect(bodies).toContain('{"not": json');
      expect(bodies).toContain(JSON.stringify(unknown));
    } finally {
      await consumer.close();
    }
    const records = spy.all();
    expect(records).toHaveLength(3);
    expect(records.every((r) => r.outcome === 'dead-lettered' && r.receiveCount === 1)).toBe(true);
    expect(
      env.calls.filter((c) => c.name === 'ChangeMessageVisibilityCommand' && c.input.QueueUrl === queue.url),
    ).toEqual([]);
  });

  it('dead-letters at once on PermanentError and when no handler is registered', async () => {
    const { queue, spy, consumer } = await harness('permanent', {
      'job.closed.v1': () => {
        throw new PermanentError('bad input');
      },
    });
    const closed = jobClosed();
    const posted = jobPosted();
    try {
      await sendEvent(env.aws.sqs, queue.url, closed);
      await sendEvent(env.aws.sqs, queue.url, posted);
      const first = await spy.waitForDeadLettered({ eventId: closed.id });
      expect(first.reason).toBe('permanent failure: bad input');
      const second = await spy.waitForDeadLettered({ eventId: posted.id });
      expect(second.reason).toMatch(/^no handler for job\.posted\.v1/);
      expect(await receiveCount(env.aws.sqs, queue.dlq.url, 2)).toHaveLength(2);
    } finally {
      await consumer.close();
    }
  });

  it('accepts an SNS-envelope body as well as a raw one, and asks for every message attribute', async () => {
    const seen: string[] = [];
    const traceparents: (string | undefined)[] = [];
    const { queue, spy, consumer } = await harness('envelope', {
      'job.closed.v1': (event, ctx) => {
        seen.push(event.id);
        traceparents.push(ctx.attributes.traceparent);
      },
    });
    const raw = jobClosed();
    const wrapped = jobClosed();
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    try {
      await sendEvent(env.aws.sqs, queue.url, raw);
      await env.aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: queue.url,
          MessageBody: JSON.stringify({
            Type: 'Notification',
            MessageId: 'm-1',
            TopicArn: 'arn:aws:sns:eu-west-1:000000000000:jobs-events',
            Message: JSON.stringify(wrapped),
            MessageAttributes: {
              type: { Type: 'String', Value: 'job.closed.v1' },
              traceparent: { Type: 'String', Value: traceparent },
            },
          }),
        }),
      );
      await spy.waitForHandled(raw.id);
      await spy.waitForHandled(wrapped.id);
    } finally {
      await consumer.close();
    }
    expect(seen.sort()).toEqual([raw.id, wrapped.id].sort());
    expect(traceparents).toContain(traceparent);
    const receives = env.calls.filter(
      (c) => c.name === 'ReceiveMessageCommand' && c.input.QueueUrl === queue.url,
    );
    expect(receives.length).toBeGreaterThan(0);
    for (const receive of receives) {
      expect(receive.input.MessageAttributeNames).toEqual(['All']);
      expect(receive.input.MessageSystemAttributeNames).toContain('ApproximateReceiveCount');
      expect(receive.input.MaxNumberOfMessages).toBeLessThanOrEqual(10);
    }
  });

  it('on retryLater(reason, afterMs) re-sends it with the asked delay (no receive burnt), then handles the copy', async () => {
    const { queue, records, resent } = await firstRunThrows(
      'retry-later',
      retryLater('projection not ready', 1000),
    );
    // Reported once the re-send settled (its copy comes back a second later): sorted.
    expect(records.map((r) => [r.outcome, r.receiveCount]).sort()).toEqual([
      ['handled', 1],
      ['retry-later', 1],
    ]);
    expect(resent.map((c) => c.input.DelaySeconds)).toEqual([1]);
    expect(
      env.calls.filter((c) => c.name === 'ChangeMessageVisibilityCommand' && c.input.QueueUrl === queue.url),
    ).toHaveLength(0);
  });

  it("brings a message held by another delivery back after the rule's 1 s, not its whole lease, and counts no failure", async () => {
    // As @hireflow/idempotency throws it: retryable, the holder's remaining lease as the hint.
    const held = Object.assign(new Error('held by another holder'), {
      retryable: true,
      retryAfterMs: 30_000,
    });
    const { records, resent } = await firstRunThrows('in-progress', held);
    const later = records.filter((r) => r.outcome === 'retry-later');
    expect(later.map((r) => [r.delaySeconds, r.failedCount])).toEqual([[1, undefined]]);
    const attributes = (c: (typeof resent)[number]) => c.input.MessageAttributes as Record<string, unknown>;
    expect(resent.map((c) => [c.input.DelaySeconds, attributes(c)['failed-count']])).toEqual([
      [1, undefined],
    ]);
  });

  it('defers without burning receives, then dead-letters once the bounded wait is over', async () => {
    let attempts = 0;
    const { queue, spy, consumer } = await harness(
      'defer',
      {
        'job.closed.v1': () => {
          attempts += 1;
          throw new DeferError(1000, 'candidate not known yet');
        },
      },
      { maxDeferMs: 2500 },
    );
    const event = jobClosed();
    try {
      await sendEvent(env.aws.sqs, queue.url, event);
      const dead = await spy.waitForDeadLettered({ eventId: event.id }, 20_000);
      expect(dead.reason).toMatch(/^deferred \d+ times over \d+ s: candidate not known yet$/);
      const [inDlq] = await receiveCount(env.aws.sqs, queue.dlq.url, 1);
      expect(JSON.parse(inDlq!.Body!).id).toBe(event.id);
      expect(Number(inDlq!.MessageAttributes?.['deferred-count']?.StringValue)).toBeGreaterThanOrEqual(1);
    } finally {
      await consumer.close();
    }
    const deferred = spy.all({ eventId: event.id, outcome: 'deferred' });
    expect(deferred.length).toBeGreaterThanOrEqual(1);
    // Every delivery was a fresh message: no receive was burnt on waiting.
    expect(spy.all({ eventId: event.id }).every((r) => r.receiveCount === 1)).toBe(true);
    expect(attempts).toBe(deferred.length + 1);
  });

  it.each([
    ['first in, first out', false],
    ['fair', true],
  ] as const)(
    'reads an SNS envelope whose attributes are malformed (%s): its event handled, the consumer still receiving',
    async (_, fairness) => {
      const { queue, spy, consumer } = await harness(
        'poison-envelope',
        { 'job.closed.v1': () => undefined },
        { fairness },
      );
      const wrapped = jobClosed();
      const after = jobClosed();
      try {
        // The envelope is the body's text, anyone's to send: an attribute of null used
        // to throw in decodeMessage, which stopped the fair consumer's receive loop for good
        // and, first in, first out, left the message unsettled, back at each visibility timeout.
        const body = JSON.stringify({
          Type: 'Notification',
          Message: JSON.stringify(wrapped),
          MessageAttributes: { type: null, count: { Type: 'Number', Value: 3 } },
        });
        await env.aws.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
        await spy.waitForHandled(wrapped.id, 20_000);
        await sendEvent(env.aws.sqs, queue.url, after);
        await spy.waitForHandled(after.id, 20_000);
      } finally {
        await consumer.close();
      }
      expect(spy.all({ eventId: wrapped.id }).map((r) => r.outcome)).toEqual(['handled']);
    },
  );
});
