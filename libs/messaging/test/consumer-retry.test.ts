import type { ProvisionedQueue } from '@hireflow/infra';
import { testTopology } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { backoffBound } from '../src/backoff.ts';
import { SqsConsumer } from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobClosed, receiveCount, sendEvent, smallTopology, useAws } from './helpers.ts';

const env = useAws();

describe('SQS consumer retries', () => {
  it('retries a failing handler after full-jitter delays below growing bounds, then deletes it', async () => {
    const topo = await testTopology(env.aws, 'retry', smallTopology());
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const backoff = { base: 1, cap: 30 };
    const draws = [0.99, 0.99];
    const event = jobClosed();
    let runs = 0;
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      backoff,
      random: () => draws.shift() ?? 0,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': () => {
          runs += 1;
          if (runs <= 2) throw new Error(`transient failure ${runs}`);
        },
      },
    });
    await consumer.start();
    try {
      await sendEvent(env.aws.sqs, queue.url, event);
      await spy.waitForHandled(event.id, 20_000);
    } finally {
      await consumer.close();
    }

    const failures = spy.all({ eventId: event.id, outcome: 'failed' });
    expect(failures.map((f) => f.receiveCount)).toEqual([1, 2]);
    const visibilityCalls = env.calls.filter(
      (c) => c.name === 'ChangeMessageVisibilityCommand' && c.input.QueueUrl === queue.url,
    );
    expect(visibilityCalls).toHaveLength(2);
    visibilityCalls.forEach((call, attempt) => {
      const bound = backoffBound(attempt, backoff);
      expect(call.input.VisibilityTimeout).toBeGreaterThanOrEqual(0);
      expect(call.input.VisibilityTimeout).toBeLessThanOrEqual(bound);
    });
    // With draws near 1 the delays sit at their bounds: 1 s, then 2 s.
    expect(visibilityCalls.map((c) => c.input.VisibilityTimeout)).toEqual([1, 2]);
    expect(backoffBound(1, backoff)).toBeGreaterThan(backoffBound(0, backoff));
    const deletes = env.calls.filter(
      (c) => c.name === 'DeleteMessageBatchCommand' && c.input.QueueUrl === queue.url,
    );
    expect(deletes.length).toBeGreaterThanOrEqual(1);
    expect(spy.all({ eventId: event.id, outcome: 'handled' })).toHaveLength(1);
  });

  it('dead-letters a message that always fails after maxReceiveCount while others keep flowing', async () => {
    const topo = await testTopology(env.aws, 'always-fails', smallTopology({ maxReceiveCount: 3 }));
    const queue: ProvisionedQueue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const poison = jobClosed();
    const good = Array.from({ length: 12 }, () => jobClosed());
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      concurrency: 4,
      // Draw 0: the failed message is visible again at once, so the test is quick.
      random: () => 0,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': (event) => {
          if (event.id === poison.id) throw new Error('always fails');
        },
      },
    });
    await consumer.start();
    try {
      await sendEvent(env.aws.sqs, queue.url, poison);
      for (const event of good) await sendEvent(env.aws.sqs, queue.url, event);
      await Promise.all(good.map((e) => spy.waitForHandled(e.id, 20_000)));
      const inDlq = await receiveCount(env.aws.sqs, queue.dlq.url, 1, 20_000);
      expect(inDlq).toHaveLength(1);
      expect(JSON.parse(inDlq[0]!.Body!).id).toBe(poison.id);
    } finally {
      await consumer.close();
    }
    // SQS moved it on the receive after the third: the handler ran exactly maxReceiveCount times.
    expect(spy.all({ eventId: poison.id, outcome: 'failed' }).map((r) => r.receiveCount)).toEqual([1, 2, 3]);
    expect(spy.all({ outcome: 'handled' })).toHaveLength(good.length);
  });
});
