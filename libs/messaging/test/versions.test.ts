// A breaking change shipped as job.posted.v2 beside v1 (docs/contracts.md),
// on the emulator with the fixture catalog of @hireflow/testing/versions:
// a consumer that handles only v2 takes the v1 backlog of its queue through
// the catalog's upcaster; during the window the outbox writes v1 and v2 in
// one transaction, a v1 consumer keeps working, and a consumer of both
// versions applies each intent once (idempotency keyed by the posting).
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { type CloudEventOf, derivedEventId, type Topology } from '@hireflow/contracts';
import { createDatabase, type Database, defineSqlMigration, migrateDatabase, type Sql } from '@hireflow/db';
import { idempotencyKey, idempotencyMigrations, idempotent } from '@hireflow/idempotency';
import { createTestDatabase, type TestDatabase, testTopology, waitFor } from '@hireflow/testing';
import { jobPostedV2, type VersionedCatalog, versionedEvents } from '@hireflow/testing/versions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventHandlers,
  enqueueVersions,
  OutboxRelay,
  outboxMigrations,
  SnsPublisher,
  SqsConsumer,
} from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import { jobPosted, useAws } from './helpers.ts';

const env = useAws();
let db: TestDatabase;
let orm: Database;

beforeAll(async () => {
  db = await createTestDatabase('versions');
  orm = createDatabase({
    url: db.url,
    migrations: [
      ...idempotencyMigrations,
      ...outboxMigrations,
      defineSqlMigration('9000-versions-test', [
        'CREATE TABLE posting (id uuid PRIMARY KEY)',
        'CREATE TABLE posting_seen (posting_id uuid NOT NULL, workplace text NOT NULL, seen_as text NOT NULL)',
      ]),
    ],
  });
  await migrateDatabase(orm);
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

// The fixture's v2 is not in Hireflow's catalog, so the topology and the
// handler map (both typed by that catalog) take its name through a cast; a
// real v2 in libs/contracts/src/events.ts needs none.
const V2_ONLY = 'job.posted.v2' as 'job.posted.v1';

function versionsTopology(): Topology {
  const queue = (consumer: 'matching' | 'notifications', types: 'job.posted.v1'[]) => ({
    consumer,
    subscriptions: [{ topic: 'jobs-events' as const, types }],
    visibilityTimeoutSeconds: 10,
    maxReceiveCount: 5,
  });
  return {
    topics: { 'jobs-events': { producer: 'jobs' } },
    queues: {
      // A subscriber moving to v2: its filter takes both during the window.
      'v2-inbox': queue('matching', ['job.posted.v1', V2_ONLY]),
      // A subscriber that has not moved: v1 only.
      'v1-inbox': queue('notifications', ['job.posted.v1']),
    },
    messageRetentionSeconds: 3600,
    receiveWaitTimeSeconds: 1,
  };
}

type PostingV2 = CloudEventOf<VersionedCatalog, 'job.posted.v2'>;

/** A handler of v2 only, for the consumer's handler map. */
function v2Only(handle: (event: PostingV2) => Promise<void> | void): EventHandlers {
  return { [V2_ONLY]: handle } as unknown as EventHandlers;
}

async function depth(queueUrl: string): Promise<number> {
  const { Attributes } = await env.aws.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
}

describe('event versions on the emulator', () => {
  it('hands a backlog of v1 messages to a consumer that handles only v2, upcast', async () => {
    const topo = await testTopology(env.aws, 'versions-backlog', versionsTopology());
    const queue = topo.queues['v2-inbox']!;
    // The backlog: v1 events published before the consumer moved to v2, still queued.
    const backlog = Array.from({ length: 12 }, () => jobPosted());
    for (const [i, event] of backlog.entries()) event.data.remote = i % 2 === 0;
    const publisher = new SnsPublisher(env.aws.sns);
    for (let i = 0; i < backlog.length; i += 10) {
      const result = await publisher.publishBatch(
        topo.topics['jobs-events']!.arn,
        backlog.slice(i, i + 10).map((event) => ({ event })),
      );
      expect(result.failed).toEqual([]);
    }
    await waitFor(async () => (await depth(queue.url)) === backlog.length, { message: 'backlog queued' });

    const seen: PostingV2[] = [];
    const spy = new HandlerSpy();
    const consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue,
      waitTimeSeconds: 1,
      contracts: versionedEvents,
      onMessage: spy.observer,
      handlers: v2Only((event) => {
        seen.push(event);
      }),
    });
    await consumer.start();
    try {
      await spy.waitForCount({ outcome: 'handled' }, backlog.length);
    } finally {
      await consumer.close();
    }
    expect(spy.all({ outcome: 'dead-lettered' })).toEqual([]);
    expect(seen.map((e) => e.type)).toEqual(backlog.map(() => 'job.posted.v2'));
    const byId = new Map(seen.map((e) => [e.id, e]));
    for (const v1 of backlog) {
      expect(byId.get(v1.id)?.data).toMatchObject({
        postingId: v1.data.jobId,
        workplace: v1.data.remote ? 'remote' : 'onsite',
        title: v1.data.title,
      });
      expect(byId.get(v1.id)?.data).not.toHaveProperty('jobId');
    }
    expect(await depth(queue.dlq.url)).toBe(0);
  });

  it('writes v1 and v2 in the transaction of the change; v1 consumers keep working; v1+v2 consumers apply each intent once', async () => {
    const topo = await testTopology(env.aws, 'versions-window', versionsTopology());
    const postings = Array.from({ length: 5 }, (_, i) =>
      jobPostedV2({ workplace: (['remote', 'hybrid', 'onsite'] as const)[i % 3] }),
    );
    for (const event of postings) {
      await orm.em.fork().transactional(async (tx) => {
        await tx.execute('INSERT INTO posting (id) VALUES (?)', [event.data.postingId]);
        await enqueueVersions(tx, event, versionedEvents);
      });
    }
    // A change that rolls back writes neither version.
    const rolledBack = jobPostedV2();
    const outboxRows = async (em: Sql) => (await em.execute('SELECT 1 FROM outbox')).length;
    const before = await outboxRows(orm.em.fork());
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await enqueueVersions(tx, rolledBack, versionedEvents);
        // Both versions written in the transaction, and rolled back with it.
        expect(await outboxRows(tx)).toBe(before + 2);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    const rows = await orm.em
      .fork()
      .execute<{ type: string; n: number }[]>(
        'SELECT type, count(*)::int AS n FROM outbox GROUP BY type ORDER BY type',
      );
    expect(rows).toEqual([
      { type: 'job.posted.v1', n: postings.length },
      { type: 'job.posted.v2', n: postings.length },
    ]);

    const relay = new OutboxRelay({
      orm,
      publisher: new SnsPublisher(env.aws.sns),
      topicArns: { 'jobs-events': topo.topics['jobs-events']!.arn },
    });
    await waitFor(async () => {
      await relay.relayOnce();
      const [left] = await orm.em
        .fork()
        .execute<{ n: number }[]>('SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL');
      return left!.n === 0;
    });

    // The subscriber still on v1: every posting once, as v1.
    const v1Spy = new HandlerSpy();
    const v1Seen: { jobId: string; remote: boolean }[] = [];
    const v1Consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue: topo.queues['v1-inbox']!,
      waitTimeSeconds: 1,
      onMessage: v1Spy.observer,
      handlers: { 'job.posted.v1': (event) => void v1Seen.push(event.data) },
    });

    // The subscriber on v2, whose queue still takes v1 during the window:
    // both copies of each posting reach its v2 handler; the intent key
    // applies each once.
    const v2Spy = new HandlerSpy();
    let applied = 0;
    const v2Consumer = new SqsConsumer({
      sqs: env.aws.sqs,
      queue: topo.queues['v2-inbox']!,
      waitTimeSeconds: 1,
      contracts: versionedEvents,
      onMessage: v2Spy.observer,
      handlers: v2Only((event) =>
        idempotent(
          orm,
          // The twin copy that meets this claim in progress retries after the
          // lease: a short one, as this handler takes milliseconds.
          { key: idempotencyKey('posting-seen', event.data.postingId), transactional: true, leaseMs: 2_000 },
          async (tx) => {
            applied++;
            await tx.execute('INSERT INTO posting_seen (posting_id, workplace, seen_as) VALUES (?, ?, ?)', [
              event.data.postingId,
              event.data.workplace,
              event.id,
            ]);
          },
        ),
      ),
    });
    await Promise.all([v1Consumer.start(), v2Consumer.start()]);
    try {
      await v1Spy.waitForCount({ outcome: 'handled' }, postings.length);
      await v2Spy.waitForCount({ outcome: 'handled' }, 2 * postings.length, 20_000);
    } finally {
      await Promise.all([v1Consumer.close(), v2Consumer.close()]);
    }

    expect(v1Spy.all({ outcome: 'dead-lettered' })).toEqual([]);
    expect(v2Spy.all({ outcome: 'dead-lettered' })).toEqual([]);
    expect(v1Seen.map((d) => d.jobId).sort()).toEqual(postings.map((e) => e.data.postingId).sort());
    for (const event of postings) {
      expect(v1Seen.find((d) => d.jobId === event.data.postingId)?.remote).toBe(
        event.data.workplace !== 'onsite',
      );
    }
    const seen = await orm.em
      .fork()
      .execute<{ posting_id: string; workplace: string }[]>(
        'SELECT posting_id, workplace FROM posting_seen ORDER BY posting_id',
      );
    // Each intent once, whichever copy came first (v1's upcast knows no
    // "hybrid": when it wins, it records what v1 could say).
    expect(seen.map((r) => r.posting_id)).toEqual(postings.map((e) => e.data.postingId).sort());
    expect(applied).toBe(postings.length);
    // Both copies were handled (the record names the type the handler saw: v2).
    const handledIds = v2Spy.all({ outcome: 'handled' }).map((r) => r.eventId);
    const copies = postings.flatMap((e) => [e.id, derivedEventId(e.id, 'job.posted.v1')]);
    expect(handledIds.sort()).toEqual(copies.sort());
    expect(new Set(v2Spy.all({ outcome: 'handled' }).map((r) => r.type))).toEqual(new Set(['job.posted.v2']));
  });
});
