import { randomUUID } from 'node:crypto';
import { type Message, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Topology } from '@hireflow/contracts';
import { type AnyEvent, type CloudEvent, createEvent } from '@hireflow/contracts';
import { createDatabase, type Database, migrateDatabase, type Sql } from '@hireflow/db';
import {
  createTestDatabase,
  type RecordedCall,
  recordCommands,
  type TestAws,
  type TestDatabase,
  testAws,
} from '@hireflow/testing';
import { afterAll, beforeAll } from 'vitest';

export { type RecordedCall, recordCommands } from '@hireflow/testing';

import { eventAttributes } from '../src/attributes.ts';
import { outboxMigrations, SqsConsumer } from '../src/index.ts';
import type { EventHandlers, SqsConsumerOptions } from '../src/sqs/types.ts';
import type { HandlerSpy } from '../src/testing.ts';
import type { TraceCarrier } from '../src/trace.ts';

export function jobClosed(): CloudEvent<'job.closed.v1'> {
  const postingId = randomUUID();
  return createEvent(
    'job.closed.v1',
    { jobId: postingId, tenantId: randomUUID(), closedAt: new Date().toISOString() },
    { source: 'hireflow/jobs', subject: postingId },
  );
}

export function jobPosted(): CloudEvent<'job.posted.v1'> {
  const postingId = randomUUID();
  return createEvent(
    'job.posted.v1',
    {
      jobId: postingId,
      tenantId: randomUUID(),
      title: 'Backend engineer',
      description: 'Queues all day.',
      skills: ['node'],
      location: 'Remote',
      remote: true,
      contactEmail: 'jobs@example.com',
      postedAt: new Date().toISOString(),
    },
    { source: 'hireflow/jobs', subject: postingId },
  );
}

/** One queue fed by one topic, with small timings so retry and DLQ tests are quick. */
export function smallTopology(
  options: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number } = {},
): Topology {
  return {
    topics: { 'jobs-events': { producer: 'jobs' } },
    queues: {
      inbox: {
        consumer: 'matching',
        subscriptions: [{ topic: 'jobs-events', types: ['job.posted.v1', 'job.closed.v1'] }],
        visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 10,
        maxReceiveCount: options.maxReceiveCount ?? 5,
      },
    },
    messageRetentionSeconds: 3600,
    receiveWaitTimeSeconds: 1,
  };
}

/** A consumer for a test: short polls, a failure's copy visible again at once (draw 0), each outcome to `spy`. */
export function quickConsumer(
  sqs: SQSClient,
  queue: SqsConsumerOptions['queue'],
  spy: HandlerSpy,
  handlers: EventHandlers,
): SqsConsumer {
  return new SqsConsumer({
    sqs,
    queue,
    waitTimeSeconds: 1,
    random: () => 0,
    onMessage: spy.observer,
    handlers,
  });
}

/** Sends an event straight to a queue, as raw SNS delivery would. */
export async function sendEvent(
  sqs: SQSClient,
  queueUrl: string,
  event: AnyEvent | CloudEvent,
  trace: TraceCarrier = {},
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(event),
      MessageAttributes: eventAttributes(event.type, trace),
    }),
  );
}

/** Receives from a queue (short waits) until `count` messages are in hand or the deadline passes. */
export async function receiveCount(
  sqs: SQSClient,
  queueUrl: string,
  count: number,
  timeoutMs = 15_000,
): Promise<Message[]> {
  const deadline = Date.now() + timeoutMs;
  const messages: Message[] = [];
  while (messages.length < count && Date.now() < deadline) {
    const result = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 60,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    messages.push(...(result.Messages ?? []));
  }
  return messages;
}

/** The file's emulator clients, every SQS request recorded; opened before its tests, closed after. */
export function useAws(): { aws: TestAws; calls: RecordedCall[] } {
  const env = {} as { aws: TestAws; calls: RecordedCall[] };
  beforeAll(() => {
    env.aws = testAws();
    env.calls = recordCommands(env.aws.sqs);
  });
  afterAll(() => env.aws.close());
  return env;
}

/** A database of the file's own with the outbox table, dropped after its tests. */
export function useOutboxDatabase(label: string): { db: TestDatabase; orm: Database; em(): Sql } {
  const env = { em: () => env.orm.em.fork() } as {
    db: TestDatabase;
    orm: Database;
    em(): Sql;
  };
  beforeAll(async () => {
    env.db = await createTestDatabase(label);
    env.orm = createDatabase({ url: env.db.url, migrations: outboxMigrations });
    await migrateDatabase(env.orm);
  });
  afterAll(async () => {
    await env.orm?.close();
    await env.db?.drop();
  });
  return env;
}
