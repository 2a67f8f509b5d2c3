import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { testTopology, waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { SqsConsumer } from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobClosed, sendEvent, smallTopology, useAws } from './helpers.ts';

const env = useAws();

describe('SQS consumer lifecycle', () => {
  it('keeps a handler slower than the visibility timeout from being redelivered (heartbeat)', async () => {
    const topo = await testTopology(env.aws, 'heartbeat', smallTopology({ visibilityTimeoutSeconds: 2 }));
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const event = jobClosed();
    let runs = 0;
    const handler = async () => {
      runs += 1;
      // Simulated slow work: 3 visibility timeouts long.
      await new Promise((resolve) => setTimeout(resolve, 6000));
    };
    // The rival polls the same queue all along and must not get the message.
    const [slow, rival] = [1, 2].map(
      () =>
        new SqsConsumer({
          sqs: env.aws.sqs,
          queue,
          waitTimeSeconds: 1,
          onMessage: spy.observer,
          handlers: { 'job.closed.v1': handler },
        }),
    ) as [SqsConsumer, SqsConsumer];
    await slow.start();
    try {
      await sendEvent(env.aws.sqs, queue.url, event);
      await waitFor(() => runs === 1, { timeoutMs: 10_000 });
      await rival.start();
      await spy.waitForHandled(event.id, 20_000);
    } finally {
      await Promise.all([slow.close(), rival.close()]);
    }
    expect(runs).toBe(1);
    expect(slow.visibilityTimeoutSeconds).toBe(2);
    const beats = env.calls.filter(
      (c) => c.name === 'ChangeMessageVisibilityBatchCommand' && c.input.QueueUrl === queue.url,
    );
    expect(beats.length).toBeGreaterThanOrEqual(2);
    for (const beat of beats) {
      expect((beat.input.Entries as { VisibilityTimeout: number }[])[0]!.VisibilityTimeout).toBe(2);
    }
  });

  it('stops gracefully during a batch: in-flight handlers finish, nothing is lost or handled twice', async () => {
    const topo = await testTopology(env.aws, 'graceful', smallTopology({ visibilityTimeoutSeconds: 30 }));
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const events = Array.from({ length: 25 }, () => jobClosed());
    const handled: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      concurrency: 5,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': async (event) => {
          await gate;
          handled.push(event.id);
        },
      },
    });
    for (const event of events) await sendEvent(env.aws.sqs, queue.url, event);
    await first.start();
    await waitFor(() =>
      env.calls.some((c) => c.name === 'ReceiveMessageCommand' && c.input.QueueUrl === queue.url),
    );
    // Handlers are blocked mid-batch; stop now, then let them finish.
    await waitFor(() => spy.records.length === 0 && first.inFlightCount === 5, { timeoutMs: 10_000 });
    const closing = first.close();
    release();
    await closing;
    const byFirst = handled.length;
    expect(byFirst).toBe(5);
    expect(spy.all({ outcome: 'handled' })).toHaveLength(5);

    const second = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      onMessage: spy.observer,
      handlers: { 'job.closed.v1': (event) => void handled.push(event.id) },
    });
    await second.start();
    try {
      await Promise.all(events.map((e) => spy.waitForHandled(e.id, 20_000)));
    } finally {
      await second.close();
    }
    expect(handled).toHaveLength(events.length);
    expect(new Set(handled).size).toBe(events.length);
  });

  it('measures handler p99 and resizes the visibility timeout from it, not the average', async () => {
    const topo = await testTopology(env.aws, 'resize', smallTopology());
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const events = Array.from({ length: 30 }, () => jobClosed());
    const slowOne = events[7]!.id;
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': async (event) => {
          if (event.id === slowOne) await new Promise((resolve) => setTimeout(resolve, 2500));
        },
      },
    });
    await consumer.start();
    try {
      for (const event of events) await sendEvent(env.aws.sqs, queue.url, event);
      await Promise.all(events.map((e) => spy.waitForHandled(e.id, 20_000)));
      const p99 = consumer.handlerDurationPercentile(99)!;
      expect(p99).toBeGreaterThanOrEqual(2400);
      const resized = await consumer.resizeVisibilityTimeout({ minSeconds: 5, factor: 3 });
      // ceil(2.5 s × 3) = 8 s; the average (~0.1 s) would have given the 5 s floor.
      expect(resized.visibilityTimeoutSeconds).toBe(Math.ceil((p99 / 1000) * 3));
      expect(resized.changed).toBe(true);
      const attrs = await env.aws.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['VisibilityTimeout'] }),
      );
      expect(Number(attrs.Attributes?.VisibilityTimeout)).toBe(resized.visibilityTimeoutSeconds);
      expect(consumer.visibilityTimeoutSeconds).toBe(resized.visibilityTimeoutSeconds);
    } finally {
      await consumer.close();
    }
  });

  it('closed while it starts, it leaves nothing running and starts again later', async () => {
    const topo = await testTopology(env.aws, 'start-close', smallTopology());
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    // No visibility timeout given: start() reads the queue's first, the window a close can land in.
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      onMessage: spy.observer,
      handlers: { 'job.closed.v1': () => undefined },
    });
    const starting = consumer.start();
    await consumer.close();
    await starting;
    // Before: the start went on after the close, its loop ended at once and its heartbeat
    // timer ran for good; start() then saw that ended loop and never started again.
    await consumer.start();
    const event = jobClosed();
    try {
      await sendEvent(env.aws.sqs, queue.url, event);
      await spy.waitForHandled(event.id, 20_000);
    } finally {
      await consumer.close();
    }
  });
});
