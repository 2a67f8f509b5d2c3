import type { AnyEvent } from '@hireflow/contracts';
import { createDatabase, migrateDatabase } from '@hireflow/db';
import { startTestTracing } from '@hireflow/telemetry/testing';
import type { ProvisionedTopology } from '@hireflow/testing';
import { createTestDatabase, testTopology, waitFor } from '@hireflow/testing';
import { trace } from '@opentelemetry/api';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventLogPage,
  enqueueEvents,
  OutboxRelay,
  outboxInsertStatement,
  outboxMigrations,
  pruneEventLog,
  registerEventLogRoutes,
  SnsPublisher,
} from '../src/index.ts';
import { jobClosed, jobPosted, smallTopology, useAws, useOutboxDatabase } from './helpers.ts';

const env = useAws();
const store = useOutboxDatabase('event-log');
const em = () => store.em();
let admin: FastifyInstance;
let topo: ProvisionedTopology;

beforeAll(async () => {
  // A zod-typed Fastify like the runtime's admin listener (which adds its token and problem+json).
  const server = Fastify().withTypeProvider<ZodTypeProvider>();
  server.setValidatorCompiler(validatorCompiler);
  server.setSerializerCompiler(serializerCompiler);
  registerEventLogRoutes(server, { orm: store.orm });
  admin = server;
  await admin.ready();
  topo = await testTopology(env.aws, 'event-log', smallTopology());
});
afterAll(async () => {
  await admin?.close();
});

async function commit(...events: AnyEvent[]): Promise<void> {
  await em().transactional(async (tx) => {
    await enqueueEvents(tx, events);
  });
}

function relay(options: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) {
  return new OutboxRelay({
    orm: store.orm,
    publisher: new SnsPublisher(env.aws.sns),
    topicArns: { 'jobs-events': topo.topics['jobs-events']!.arn },
    listen: false,
    ...options,
  });
}

/** Relays until the outbox holds nothing due (a row that keeps failing is backed off, so it is not due). */
async function relayAll(r: OutboxRelay): Promise<void> {
  await waitFor(async () => (await r.relayOnce()).claimed === 0, { timeoutMs: 20_000 });
}

async function page(query: string): Promise<EventLogPage> {
  const res = await admin.inject({ method: 'GET', url: `/internal/events?${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<EventLogPage>();
}

const logged = async (ids: string[]) =>
  (await em().execute<{ event_id: string }[]>('SELECT event_id FROM event_log ORDER BY position')).filter(
    (row) => ids.includes(row.event_id),
  );

describe('the event log', () => {
  it('keeps what the relay published, in publication order, with its trace context; never what it did not', async () => {
    const tracing = startTestTracing();
    const events = [jobPosted(), jobClosed(), jobPosted()];
    let traceId: string;
    try {
      traceId = await trace.getTracer('test').startActiveSpan('POST /v1/jobs', async (span) => {
        await commit(...events);
        span.end();
        return span.spanContext().traceId;
      });
    } finally {
      await tracing.stop();
    }
    const unpublished = jobClosed();
    await commit(unpublished);
    // Its publish fails (no ARN for its topic): pending, so not in the log.
    await em().execute(`UPDATE outbox SET topic = 'nowhere' WHERE event_id = ?`, [unpublished.id]);
    await relayAll(relay());
    const ids = events.map((e) => e.id);
    expect((await logged([...ids, unpublished.id])).map((r) => r.event_id)).toEqual(ids);

    const all = await page('');
    const mine = all.items.filter((item) => ids.includes(item.event.id));
    expect(mine.map((item) => item.event)).toEqual(events);
    for (const item of mine) expect(item.trace.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
    expect(all.items.some((item) => item.event.id === unpublished.id)).toBe(false);
  });

  it('logs a re-announced event once, however often it is published', async () => {
    const event = jobClosed();
    for (let i = 0; i < 3; i++) {
      const insert = outboxInsertStatement(event, { republish: true });
      await em().execute(insert.sql, insert.params);
      await relayAll(relay());
    }
    expect(await logged([event.id])).toHaveLength(1);
  });

  it('pages by position and filters by type and event time', async () => {
    const closed = Array.from({ length: 5 }, () => jobClosed());
    const posted = jobPosted();
    const old = { ...jobClosed(), time: '2020-01-01T00:00:00.000Z' } as AnyEvent;
    await commit(...closed, posted, old);
    await relayAll(relay());
    const since = new Date(Date.now() - 3_600_000).toISOString();

    const seen: string[] = [];
    let cursor: string | null = '0';
    let pages = 0;
    while (cursor !== null) {
      const p: EventLogPage = await page(
        `types=job.closed.v1&since=${encodeURIComponent(since)}&limit=2&after=${cursor}`,
      );
      seen.push(...p.items.map((item) => item.event.id));
      for (const item of p.items) expect(item.event.type).toBe('job.closed.v1');
      cursor = p.nextCursor;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(2);
    const ids = seen.filter((id) => [...closed, posted, old].some((e) => e.id === id));
    expect(ids).toEqual(closed.map((e) => e.id));
    const until = await page(`types=job.closed.v1&until=2021-01-01T00:00:00Z`);
    expect(until.items.map((item) => item.event.id)).toEqual([old.id]);
    expect(until.nextCursor).toBeNull();
  });

  it('refuses a bad query with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['types=job.posted.v1,nope.v1', 'types'],
      ['since=yesterday', 'since'],
      ['after=-1', 'after'],
      ['limit=501', 'limit'],
      ['colour=blue', ''],
    ] as const) {
      const res = await admin.inject({ method: 'GET', url: `/internal/events?${query}` });
      expect(res.statusCode, query).toBe(400);
      if (field) expect(res.json().message, query).toContain(field);
    }
  });

  it('prunes entries published before the retention, nothing newer', async () => {
    const [old, recent] = [jobClosed(), jobClosed()];
    await commit(old, recent);
    await relayAll(relay());
    await em().execute("UPDATE event_log SET published_at = now() - interval '400 days' WHERE event_id = ?", [
      old.id,
    ]);
    expect(await pruneEventLog(em(), { olderThanMs: 365 * 24 * 3_600_000 })).toBeGreaterThanOrEqual(1);
    expect((await logged([old.id, recent.id])).map((r) => r.event_id)).toEqual([recent.id]);
  });
});

describe('the event log migration', () => {
  it('starts the log with what an existing outbox had sent, in order, and nothing pending', async () => {
    const db = await createTestDatabase('event-log-migration');
    const before = outboxMigrations.filter((m) => m.name < '0003');
    const orm = createDatabase({ url: db.url, migrations: before });
    try {
      await migrateDatabase(orm);
      const [first, second, pending] = [jobPosted(), jobClosed(), jobClosed()];
      const tx = orm.em.fork();
      await tx.transactional(async (t) => {
        await enqueueEvents(t, [first, second, pending]);
      });
      await tx.execute('UPDATE outbox SET sent_at = now() WHERE event_id IN (?, ?)', [first.id, second.id]);
      await orm.close();
      const upgraded = createDatabase({
        url: db.url,
        migrations: outboxMigrations,
      });
      try {
        await migrateDatabase(upgraded);
        const rows = await upgraded.em
          .fork()
          .execute<{ event_id: string; at_event_time: boolean }[]>(
            "SELECT event_id, event_time = (payload->>'time')::timestamptz AS at_event_time FROM event_log ORDER BY position",
          );
        expect(rows).toEqual([
          { event_id: first.id, at_event_time: true },
          { event_id: second.id, at_event_time: true },
        ]);
      } finally {
        await upgraded.close();
      }
    } finally {
      await orm.close().catch(() => undefined);
      await db.drop();
    }
  });
});
