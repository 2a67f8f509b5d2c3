import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { ProvisionedQueue } from '@hireflow/testing';
import { startTcpProxy, testTopology } from '@hireflow/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ATTR_DEAD_LETTER_REASON, ATTR_FAILED_COUNT } from '../src/attributes.ts';
import { backoffBound } from '../src/backoff.ts';
import { retryLater, SqsConsumer } from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobClosed, receiveCount, sendEvent, smallTopology, useAws } from './helpers.ts';

const env = useAws();

/** The re-sends a consumer made to the queue, in order. */
function resends(queueUrl: string) {
  return env.calls.filter((c) => c.name === 'SendMessageCommand' && c.input.QueueUrl === queueUrl);
}

describe('SQS consumer retries', () => {
  it('retries a failing handler after full-jitter delays below growing bounds, then deletes it', async () => {
    const topo = await testTopology(env.aws, 'retry', smallTopology());
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const backoff = { base: 1, cap: 30 };
    const draws = [0.99, 0.99];
    const event = jobClosed();
    const seen: number[] = [];
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      backoff,
      random: () => draws.shift() ?? 0,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': (_event, context) => {
          seen.push(context.failedCount);
          if (seen.length <= 2) throw new Error(`transient failure ${seen.length}`);
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

    // Each failure re-sent the message: every delivery was a first receive,
    // and the handler saw the failures counted so far.
    const failures = spy.all({ eventId: event.id, outcome: 'failed' });
    expect(failures.map((f) => f.receiveCount)).toEqual([1, 1]);
    expect(failures.map((f) => f.failedCount).sort()).toEqual([1, 2]);
    expect(seen).toEqual([0, 1, 2]);
    const sent = resends(queue.url).slice(1); // the first is the test's own send
    expect(sent).toHaveLength(2);
    sent.forEach((call, attempt) => {
      const delay = call.input.DelaySeconds as number;
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(backoffBound(attempt, backoff));
      const attributes = call.input.MessageAttributes as Record<string, { StringValue: string }>;
      expect(attributes[ATTR_FAILED_COUNT]?.StringValue).toBe(String(attempt + 1));
      expect(attributes.type?.StringValue).toBe('job.closed.v1');
    });
    // With draws near 1 the delays sit at their bounds: 1 s, then 2 s.
    expect(sent.map((c) => c.input.DelaySeconds)).toEqual([1, 2]);
    expect(
      env.calls.filter((c) => c.name === 'ChangeMessageVisibilityCommand' && c.input.QueueUrl === queue.url),
    ).toHaveLength(0);
    expect(spy.all({ eventId: event.id, outcome: 'handled' })).toHaveLength(1);
  });

  it('dead-letters a message that always fails after maxAttempts, with why, while others keep flowing', async () => {
    // maxReceiveCount 2 is below maxAttempts: the failures are the consumer's to count, not SQS's.
    const topo = await testTopology(env.aws, 'always-fails', smallTopology({ maxReceiveCount: 2 }));
    const queue: ProvisionedQueue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const poison = jobClosed();
    const good = Array.from({ length: 12 }, () => jobClosed());
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      concurrency: 4,
      maxAttempts: 4,
      // Draw 0: the re-sent message is visible again at once, so the test is quick.
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
      expect(inDlq[0]!.MessageAttributes?.[ATTR_DEAD_LETTER_REASON]?.StringValue).toBe(
        'failed 4 times: always fails',
      );
    } finally {
      await consumer.close();
    }
    // The handler ran exactly maxAttempts times, each on a first receive. (A
    // record is reported once its re-send and delete are done, by when the
    // copy may have been handled again: records are compared in count order.)
    const runs = spy.all({ eventId: poison.id }).sort((a, b) => a.failedCount! - b.failedCount!);
    expect(runs.map((r) => [r.outcome, r.failedCount])).toEqual([
      ['failed', 1],
      ['failed', 2],
      ['failed', 3],
      ['dead-lettered', 4],
    ]);
    expect(runs.every((r) => r.receiveCount === 1)).toBe(true);
    expect(spy.all({ outcome: 'handled' })).toHaveLength(good.length);
  });

  it('handles a message whose earlier receives were burnt by workers that died holding it', async () => {
    const topo = await testTopology(env.aws, 'burnt', smallTopology({ maxReceiveCount: 3 }));
    const queue = topo.queues.inbox!;
    const event = jobClosed();
    await sendEvent(env.aws.sqs, queue.url, event);
    // Two workers take the message and die before any verdict: two receives burnt.
    for (let burnt = 0; burnt < 2; ) {
      const got = await env.aws.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 1, VisibilityTimeout: 0 }),
      );
      burnt += got.Messages?.length ?? 0;
    }
    const spy = new HandlerSpy();
    let runs = 0;
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      random: () => 0,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': () => {
          runs += 1;
          if (runs === 1) throw new Error('a dependency blinked');
        },
      },
    });
    await consumer.start();
    try {
      // The third receive fails once. Left to SQS, its fourth receive would
      // move it to the DLQ (maxReceiveCount 3); re-sent, it starts over.
      await spy.waitForHandled(event.id, 20_000);
    } finally {
      await consumer.close();
    }
    const records = spy.all({ eventId: event.id });
    expect(records.map((r) => [r.outcome, r.receiveCount]).sort()).toEqual([
      ['failed', 3],
      ['handled', 1],
    ]);
    expect(await receiveCount(env.aws.sqs, queue.dlq.url, 1, 2_000)).toHaveLength(0);
  });

  it('waits for a lease held elsewhere (retry-later) longer than maxReceiveCount receives without dead-lettering', async () => {
    const topo = await testTopology(env.aws, 'retry-later', smallTopology({ maxReceiveCount: 2 }));
    const queue = topo.queues.inbox!;
    const spy = new HandlerSpy();
    const event = jobClosed();
    const deferred: number[] = [];
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': (_event, context) => {
          deferred.push(context.deferredCount);
          if (deferred.length <= 4) throw retryLater('held by another delivery', 0);
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
    // Records come in as each re-send settles, maybe after its copy was handled:
    // compared as counts; the handler's own calls show the order.
    const records = spy.all({ eventId: event.id });
    expect(records.map((r) => r.outcome).sort()).toEqual([
      'handled',
      'retry-later',
      'retry-later',
      'retry-later',
      'retry-later',
    ]);
    expect(records.every((r) => r.receiveCount === 1)).toBe(true);
    expect(deferred).toEqual([0, 1, 2, 3, 4]);
  });

  it('waits out a database outage without counting it toward maxAttempts, then handles the message', async () => {
    const topo = await testTopology(env.aws, 'db-outage', smallTopology({ maxReceiveCount: 2 }));
    const queue = topo.queues.inbox!;
    const proxy = await startTcpProxy({ port: 5432 });
    const pool = new pg.Pool({
      connectionString: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
      max: 2,
      connectionTimeoutMillis: 2000,
    });
    pool.on('error', () => undefined);
    const spy = new HandlerSpy();
    const event = jobClosed();
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      maxAttempts: 2,
      random: () => 0,
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': async () => {
          await pool.query('SELECT 1');
        },
      },
    });
    proxy.cut();
    await consumer.start();
    try {
      await sendEvent(env.aws.sqs, queue.url, event);
      // Twice maxAttempts failures while the database is away, none dead-lettered.
      await spy.waitForCount({ eventId: event.id, outcome: 'failed' }, 4, 20_000);
      proxy.restore();
      await spy.waitForHandled(event.id, 20_000);
    } finally {
      await consumer.close();
      await pool.end();
      await proxy.close();
    }
    const failed = spy.all({ eventId: event.id, outcome: 'failed' });
    expect(failed.length).toBeGreaterThanOrEqual(4);
    for (const record of failed) {
      expect(record.failedCount).toBe(0);
      expect(record.receiveCount).toBe(1);
      expect(record.reason).toMatch(/^dependency unavailable: /);
    }
    expect(spy.all({ eventId: event.id, outcome: 'dead-lettered' })).toEqual([]);
    expect(await receiveCount(env.aws.sqs, queue.dlq.url, 1, 2_000)).toHaveLength(0);
  });
});
