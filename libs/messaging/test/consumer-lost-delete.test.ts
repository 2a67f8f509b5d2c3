import { testAws, testTopology, uniqueName } from '@hireflow/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTR_DEAD_LETTER_REASON } from '../src/attributes.ts';
import { SqsConsumer } from '../src/index.ts';
import { redisSupersededMarks } from '../src/sqs/superseded.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobClosed, receiveCount, sendEvent, smallTopology, useAws } from './helpers.ts';
import { REDIS } from './task-queues.ts';

// A failed message is re-sent as a copy, then the received one is deleted.
// When that delete is lost (the process dies between the two, the call
// fails), the original comes back beside its copy. It must not start a
// second failure chain from failed-count 0 (up to twice the attempts, two
// dead letters): the copy was marked as superseding it, so it is deleted
// unhandled, and the failed delivery is reported though its settling threw.

const env = useAws();
const redis = new Redis(REDIS);
afterAll(async () => {
  await redis.quit();
});

describe('SQS consumer: a re-send whose delete was lost', () => {
  it('counts the attempts once, in one chain, with one dead letter', async () => {
    const topo = await testTopology(env.aws, 'lost-delete', smallTopology({ visibilityTimeoutSeconds: 2 }));
    const queue = topo.queues.inbox!;
    // A client of its own whose first DeleteMessage (the original's, after its first re-send) is lost.
    const flaky = testAws();
    let lost = 0;
    flaky.sqs.middlewareStack.add(
      ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
        async (args: unknown) => {
          if (context.commandName === 'DeleteMessageCommand' && lost === 0) {
            lost += 1;
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          }
          return next(args);
        }) as never,
      { step: 'initialize', name: 'lose-first-delete' },
    );
    const spy = new HandlerSpy();
    const poison = jobClosed();
    let runs = 0;
    const consumer = new SqsConsumer({
      sqs: flaky.sqs,
      queue,
      waitTimeSeconds: 1,
      visibilityTimeoutSeconds: 2,
      maxAttempts: 3,
      random: () => 0,
      superseded: redisSupersededMarks(redis, `hftest:${uniqueName('marks')}`),
      onMessage: spy.observer,
      handlers: {
        'job.closed.v1': () => {
          runs += 1;
          throw new Error('always fails');
        },
      },
    });
    await consumer.start();
    try {
      await sendEvent(env.aws.sqs, queue.url, poison);
      const dlq = await receiveCount(env.aws.sqs, queue.dlq.url, 1, 30_000);
      expect(dlq[0]!.MessageAttributes?.[ATTR_DEAD_LETTER_REASON]?.StringValue).toBe(
        'failed 3 times: always fails',
      );
      // The original comes back once its visibility (2 s) is over: superseded, not handled.
      await spy.waitForMessage({ outcome: 'superseded' }, 20_000);
    } finally {
      await consumer.close();
      flaky.close();
    }
    expect(lost).toBe(1);
    expect(runs).toBe(3);
    // Reported though its settling threw: the first failure, then the rest of the one chain.
    const records = spy.all({ eventId: poison.id });
    expect(records.filter((r) => r.outcome === 'failed').map((r) => r.reason ?? '')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^settling failed: socket hang up/)]),
    );
    expect(records.filter((r) => r.outcome === 'dead-lettered')).toHaveLength(1);
    // Nothing else in the DLQ: one dead letter for one message.
    expect(await receiveCount(env.aws.sqs, queue.dlq.url, 1, 3000)).toHaveLength(0);
  }, 90_000);
});
