import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AnyEvent } from '@hireflow/contracts';
import { startTestTracing } from '@hireflow/telemetry/testing';
import type { ProvisionedTopology } from '@hireflow/testing';
import { testTopology, waitFor } from '@hireflow/testing';
import { trace } from '@opentelemetry/api';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  enqueueEvent,
  enqueueEvents,
  OUTBOX_CHANNEL,
  OutboxRelay,
  type OutgoingEvent,
  outboxInsertStatement,
  type PublishResult,
  pruneOutbox,
  SnsPublisher,
} from '../src/index.ts';
import { jobClosed, jobPosted, receiveCount, smallTopology, useAws, useOutboxDatabase } from './helpers.ts';

const env = useAws();
const store = useOutboxDatabase('outbox');
const em = () => store.em();

async function commit(...events: AnyEvent[]): Promise<void> {
  await em().transactional(async (tx) => {
    await enqueueEvents(tx, events);
  });
}

async function rowsOf(ids: string[]) {
  return em().execute<
    { event_id: string; sent_at: Date | null; attempts: number; last_error: string | null }[]
  >('SELECT event_id, sent_at, attempts, last_error FROM outbox WHERE event_id = ANY(?::uuid[])', [
    `{${ids.join(',')}}`,
  ]);
}

function relayFor(
  topo: ProvisionedTopology,
  options: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {},
) {
  return new OutboxRelay({
    orm: store.orm,
    publisher: new SnsPublisher(env.aws.sns),
    topicArns: { 'jobs-events': topo.topics['jobs-events']!.arn },
    ...options,
  });
}

/** Runs relay rounds until every given event's row is sent (or the deadline passes). */
async function relayUntilSent(relay: OutboxRelay, eventIds: string[]): Promise<void> {
  await waitFor(
    async () => {
      if ((await rowsOf(eventIds)).every((r) => r.sent_at)) return true;
      await relay.relayOnce();
      return false;
    },
    { timeoutMs: 20_000 },
  );
}

const bodiesIds = (messages: { Body?: string }[]) => messages.map((m) => JSON.parse(m.Body!).id as string);

describe('transactional outbox', () => {
  it('publishes a committed row as soon as it commits (NOTIFY, not the poll) and marks it sent', async () => {
    const topo = await testTopology(env.aws, 'outbox-notify', smallTopology());
    // A poll interval longer than the test: only the NOTIFY can wake the relay.
    const relay = relayFor(topo, { pollIntervalMs: 120_000 });
    await relay.start();
    try {
      await waitFor(async () => (await relay.relayOnce()).claimed === 0);
      const event = jobPosted();
      await commit(event);
      const [message] = await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 1, 10_000);
      expect(JSON.parse(message!.Body!)).toEqual(event);
      expect(message!.MessageAttributes?.type?.StringValue).toBe('job.posted.v1');
      await waitFor(async () => (await rowsOf([event.id]))[0]?.sent_at);
    } finally {
      await relay.close();
    }
  });

  it('producers NOTIFY only while a relay sleeps (NOTIFY serialises commits); what they write is published all the same', async () => {
    const topo = await testTopology(env.aws, 'outbox-sleep', smallTopology());
    const listener = new pg.Client({ connectionString: store.db.url });
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel === OUTBOX_CHANNEL ? 'outbox' : n.payload!));
    await listener.connect();
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}; LISTEN test_marker`);
    const relay = relayFor(topo, { pollIntervalMs: 120_000 });
    try {
      // No relay sleeps: the commit sends no NOTIFY. Notifications arrive in commit
      // order, so the marker sent after it coming first shows that none was sent.
      const quiet = jobPosted();
      await commit(quiet);
      await em().execute("SELECT pg_notify('test_marker', 'marker')");
      await waitFor(() => heard.includes('marker'));
      expect(heard).toEqual(['marker']);
      // A relay that found nothing sleeps holding the lock: now the commit wakes it.
      await relay.start();
      await waitFor(async () => {
        const [row] = await em().execute<{ n: string }[]>(
          `SELECT count(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND l.mode = 'ExclusiveLock' AND l.granted AND d.datname = current_database()`,
        );
        return Number(row!.n) > 0;
      });
      const woken = jobPosted();
      await commit(woken);
      await waitFor(() => heard.includes('outbox'));
      const received = await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 2, 10_000);
      expect(bodiesIds(received).sort()).toEqual([quiet.id, woken.id].sort());
    } finally {
      await relay.close();
      await listener.end();
    }
  });

  it('loses nothing when the process dies between commit and publish; a rollback publishes nothing', async () => {
    const topo = await testTopology(env.aws, 'outbox-crash', smallTopology());
    const child = spawn(
      process.execPath,
      [new URL('./fixtures/commit-then-die.ts', import.meta.url).pathname, store.db.url],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    // Never left running: a child that commits after this test gave up would leave its row to the next tests.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    // The child's start-up (a Node process, its imports, a connection) is seconds on a loaded machine.
    const committedId = await waitFor(() => /committed (\S+)/.exec(output)?.[1], { timeoutMs: 60_000 });
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    expect((await rowsOf([committedId]))[0]?.sent_at).toBeNull();

    const rolledBack = jobClosed();
    await expect(
      em().transactional(async (tx) => {
        await enqueueEvent(tx, rolledBack);
        // Written in the transaction, and rolled back with it.
        expect(await tx.execute('SELECT 1 FROM outbox WHERE event_id = ?', [rolledBack.id])).toHaveLength(1);
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    expect(await rowsOf([rolledBack.id])).toEqual([]);

    // "After a restart": a new relay publishes what the dead process committed.
    const marker = jobClosed();
    await commit(marker);
    const relay = relayFor(topo);
    await relay.start();
    try {
      const messages = await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 2, 15_000);
      const ids = bodiesIds(messages);
      expect(ids).toContain(committedId);
      expect(ids).toContain(marker.id);
      expect(ids).not.toContain(rolledBack.id);
    } finally {
      await relay.close();
    }
  }, 90_000);

  it('keeps entries of a partially failed PublishBatch unsent and publishes them on the next round', async () => {
    const topo = await testTopology(env.aws, 'outbox-partial', smallTopology());
    const events = [jobClosed(), jobClosed(), jobClosed()];
    const victim = events[1]!.id;
    let dropped = false;
    // Fails one entry of the first PublishBatch the way SNS reports it: in `Failed`.
    env.aws.sns.middlewareStack.add(
      ((
        next: (args: {
          input: { PublishBatchRequestEntries?: { Id: string; Message: string }[] };
        }) => Promise<{ output: { Failed?: unknown[] } }>,
      ) =>
        async (args: { input: { PublishBatchRequestEntries?: { Id: string; Message: string }[] } }) => {
          const entries = args.input.PublishBatchRequestEntries;
          const target = entries?.find((e) => JSON.parse(e.Message).id === victim);
          if (dropped || !entries || !target) return next(args);
          dropped = true;
          args.input.PublishBatchRequestEntries = entries.filter((e) => e !== target);
          const result = await next(args);
          result.output.Failed = [
            ...(result.output.Failed ?? []),
            { Id: target.Id, Code: 'InternalError', SenderFault: false, Message: 'boom' },
          ];
          return result;
        }) as never,
      { step: 'initialize', name: 'fail-one-entry' },
    );
    await commit(...events);
    const relay = relayFor(topo, { listen: false });
    const first = await relay.relayOnce();
    expect(first).toMatchObject({ published: 2, failed: 1 });
    const [failedRow] = await rowsOf([victim]);
    expect(failedRow).toMatchObject({ sent_at: null, attempts: 1, last_error: 'InternalError: boom' });
    // It waits a full-jitter backoff below 2^1 s instead of blocking the head of the outbox.
    const [timing] = await em().execute<{ wait: number }[]>(
      'SELECT extract(epoch FROM next_attempt_at - now())::float AS wait FROM outbox WHERE event_id = ?',
      [victim],
    );
    expect(timing!.wait).toBeLessThanOrEqual(2);
    await em().execute('UPDATE outbox SET next_attempt_at = now() WHERE event_id = ?', [victim]);
    const second = await relay.relayOnce();
    expect(second).toMatchObject({ claimed: 1, published: 1, failed: 0 });
    const ids = bodiesIds(await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 3));
    expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('a batch whose commit is cut off stays pending and is published and marked again; errors are stored verbatim', async () => {
    const topo = await testTopology(env.aws, 'outbox-cut', smallTopology());
    const events = [jobClosed(), jobClosed()];
    const nasty = `it's a "quote", a \\ backslash and a '; DROP TABLE outbox; -- for good measure`;
    let call = 0;
    // First PublishBatch: refused whole with an awkward message. Second: published, and
    // the relay's own connection is terminated before it can mark and commit.
    env.aws.sns.middlewareStack.add(
      ((next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
        call += 1;
        if (call === 1) throw Object.assign(new Error(nasty), { name: 'Throttled' });
        const result = await next(args);
        if (call === 2)
          await em().execute(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`,
          );
        return result;
      }) as never,
      { step: 'initialize', name: 'fail-then-cut' },
    );
    onTestFinished(() => {
      env.aws.sns.middlewareStack.remove('fail-then-cut');
    });
    await commit(...events);
    const ids = events.map((e) => e.id);
    const relay = relayFor(topo, { listen: false });
    expect(await relay.relayOnce()).toMatchObject({ claimed: 2, published: 0, failed: 2 });
    expect(await rowsOf(ids)).toEqual(
      ids.map(() =>
        expect.objectContaining({ sent_at: null, attempts: 1, last_error: `Throttled: ${nasty}` }),
      ),
    );
    await em().execute('UPDATE outbox SET next_attempt_at = now() WHERE event_id = ANY(?::uuid[])', [
      `{${ids.join(',')}}`,
    ]);
    // Published, but the commit that marks them never happens: nothing is marked, nothing logged.
    await expect(relay.relayOnce()).rejects.toThrow();
    expect(await rowsOf(ids)).toEqual(ids.map(() => expect.objectContaining({ sent_at: null, attempts: 1 })));
    const [logged] = await em().execute<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM event_log WHERE event_id = ANY(?::uuid[])',
      [`{${ids.join(',')}}`],
    );
    expect(logged!.n).toBe(0);
    // The pool replaced the dead connection: the next round publishes them again and marks them once.
    await relayUntilSent(relay, ids);
    expect(await rowsOf(ids)).toEqual(ids.map(() => expect.objectContaining({ attempts: 2 })));
    expect(bodiesIds(await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 4)).sort()).toEqual(
      [...ids, ...ids].sort(),
    );
  });

  it("dates a row when it is written, not when its transaction began (the relay's backlog age counts from the write)", async () => {
    const event = jobPosted();
    const { began } = await em().transactional(async (tx) => {
      // The transaction's start, then a write 200 ms later (a long computation before it).
      const [began] = await tx.execute<{ now: string }[]>('SELECT now()::text AS now');
      await tx.execute('SELECT pg_sleep(0.2)');
      await enqueueEvent(tx, event);
      return { began: began!.now };
    });
    const [row] = await em().execute<{ after_ms: number }[]>(
      'SELECT extract(epoch FROM created_at - ?::timestamptz) * 1000 AS after_ms FROM outbox WHERE event_id = ?',
      [began, event.id],
    );
    // Not for the relays of the tests after this one (they share the outbox).
    await em().execute('DELETE FROM outbox WHERE event_id = ?', [event.id]);
    expect(Number(row!.after_ms)).toBeGreaterThanOrEqual(200);
  });

  it('composes the outbox row into the state change as one statement (outboxInsertStatement)', async () => {
    const topo = await testTopology(env.aws, 'outbox-sql', smallTopology());
    await em().execute('CREATE TABLE IF NOT EXISTS thing (id uuid PRIMARY KEY)');
    const written = jobClosed();
    const insert = outboxInsertStatement(written, { from: 'thing_row' });
    const thingId = written.data.jobId;
    const sql = `WITH thing_row AS (INSERT INTO thing (id) VALUES (?) ON CONFLICT (id) DO NOTHING RETURNING id) ${insert.sql}`;
    await em().execute(sql, [thingId, ...insert.params]);
    // The same state change again inserts nothing, so it emits nothing.
    const again = outboxInsertStatement(jobClosed(), { from: 'thing_row' });
    await em().execute(
      `WITH thing_row AS (INSERT INTO thing (id) VALUES (?) ON CONFLICT (id) DO NOTHING RETURNING id) ${again.sql}`,
      [thingId, ...again.params],
    );
    expect(await rowsOf([written.id])).toHaveLength(1);
    expect(await rowsOf([again.params[0] as string])).toHaveLength(0);
    await relayUntilSent(relayFor(topo, { listen: false }), [written.id]);
    expect(bodiesIds(await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 1))).toEqual([written.id]);
  });

  it('republishes a re-announced event (same id) instead of refusing it, and inserts it when new', async () => {
    const topo = await testTopology(env.aws, 'outbox-republish', smallTopology());
    const event = jobClosed();
    const insert = () => {
      const statement = outboxInsertStatement(event, { republish: true });
      return em().execute(statement.sql, statement.params);
    };
    await insert();
    const relay = relayFor(topo, { listen: false });
    await relayUntilSent(relay, [event.id]);
    await insert(); // the same fact announced again: pending once more, still one row
    expect(await rowsOf([event.id])).toEqual([expect.objectContaining({ sent_at: null, attempts: 0 })]);
    await relayUntilSent(relay, [event.id]);
    expect(bodiesIds(await receiveCount(env.aws.sqs, topo.queues.inbox!.url, 2))).toEqual([
      event.id,
      event.id,
    ]);
    // Without the option, a second row with the same event id is refused.
    const plain = outboxInsertStatement(event);
    await expect(em().execute(plain.sql, plain.params)).rejects.toThrow(/duplicate key/);
  });

  it('backs a failing row off instead of retrying it every round', async () => {
    const topo = await testTopology(env.aws, 'outbox-backoff', smallTopology());
    const event = jobPosted();
    await commit(event);
    // No ARN for the topic: every publish of this row fails.
    const broken = relayFor(topo, { listen: false, topicArns: {} });
    expect((await broken.relayOnce()).failed).toBeGreaterThanOrEqual(1);
    const [row] = await em().execute<{ attempts: number; due: boolean }[]>(
      "SELECT attempts, next_attempt_at > now() - interval '1 second' AS due FROM outbox WHERE event_id = ?",
      [event.id],
    );
    expect(row).toMatchObject({ attempts: 1, due: true });
    await em().execute(`UPDATE outbox SET next_attempt_at = now() + interval '1 hour' WHERE event_id = ?`, [
      event.id,
    ]);
    // Backing off: not claimed again until it is due, so newer rows are not held up behind it.
    const fixed = relayFor(topo, { listen: false });
    const later = jobPosted();
    await commit(later);
    await relayUntilSent(fixed, [later.id]);
    expect((await rowsOf([event.id]))[0]).toMatchObject({ sent_at: null, attempts: 1 });
  });

  it('splits PublishBatch calls by size: AWS refuses a batch over 256 KiB', async () => {
    const topo = await testTopology(env.aws, 'outbox-bytes', smallTopology());
    const calls: number[] = [];
    class SizeRecordingPublisher extends SnsPublisher {
      override async publishBatch(topicArn: string, items: OutgoingEvent[]): Promise<PublishResult> {
        calls.push(items.reduce((n, item) => n + Buffer.byteLength(JSON.stringify(item.event)), 0));
        return super.publishBatch(topicArn, items);
      }
    }
    // ~60 KB each: a 20,000-character description of 3-byte characters.
    const events = Array.from({ length: 6 }, () => {
      const e = jobPosted();
      return { ...e, data: { ...e.data, description: '語'.repeat(20_000) } } as AnyEvent;
    });
    await commit(...events);
    const relay = relayFor(topo, { listen: false, publisher: new SizeRecordingPublisher(env.aws.sns) });
    await relayUntilSent(
      relay,
      events.map((e) => e.id),
    );
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const bytes of calls) expect(bytes).toBeLessThanOrEqual(240 * 1024);
  });

  it('shares the outbox between two relays: every row published, none by both', async () => {
    const topo = await testTopology(env.aws, 'outbox-two', smallTopology());
    const published = new Map<string, string[]>();
    class RecordingPublisher extends SnsPublisher {
      readonly #label: string;
      constructor(label: string) {
        super(env.aws.sns);
        this.#label = label;
      }
      override async publishBatch(topicArn: string, items: OutgoingEvent[]): Promise<PublishResult> {
        const result = await super.publishBatch(topicArn, items);
        for (const id of result.published) published.set(id, [...(published.get(id) ?? []), this.#label]);
        return result;
      }
    }
    const events = Array.from({ length: 200 }, () => jobClosed());
    const relays = ['a', 'b'].map((label) =>
      relayFor(topo, { batchSize: 15, publisher: new RecordingPublisher(label) }),
    );
    await Promise.all(relays.map((r) => r.start()));
    try {
      for (let i = 0; i < events.length; i += 20) await commit(...events.slice(i, i + 20));
      await waitFor(async () => (await rowsOf(events.map((e) => e.id))).every((r) => r.sent_at), {
        timeoutMs: 30_000,
      });
    } finally {
      await Promise.all(relays.map((r) => r.close()));
    }
    for (const event of events) expect(published.get(event.id), event.id).toHaveLength(1);
    const byRelay = [...published.values()].flat();
    expect(byRelay.filter((l) => l === 'a').length + byRelay.filter((l) => l === 'b').length).toBe(
      events.length,
    );
  });

  it('keeps the trace context of the enqueuing request on the row', async () => {
    const tracing = startTestTracing();
    try {
      const event = jobClosed();
      const traceId = await trace.getTracer('test').startActiveSpan('POST /v1/jobs', async (span) => {
        await commit(event);
        span.end();
        return span.spanContext().traceId;
      });
      const [row] = await em().execute<{ traceparent: string }[]>(
        'SELECT traceparent FROM outbox WHERE event_id = ?',
        [event.id],
      );
      expect(row!.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    } finally {
      await tracing.stop();
    }
  });

  it('prunes sent rows older than the retention, never pending ones', async () => {
    const old = jobClosed();
    const recent = jobClosed();
    const pending = jobClosed();
    await commit(old, recent, pending);
    await em().execute("UPDATE outbox SET sent_at = now() - interval '8 days' WHERE event_id = ?", [old.id]);
    await em().execute('UPDATE outbox SET sent_at = now() WHERE event_id = ?', [recent.id]);
    await em().execute("UPDATE outbox SET created_at = now() - interval '30 days' WHERE event_id = ?", [
      pending.id,
    ]);
    const deleted = await pruneOutbox(em(), { olderThanMs: 7 * 24 * 3600 * 1000 });
    expect(deleted).toBeGreaterThanOrEqual(1);
    const left = (await rowsOf([old.id, recent.id, pending.id])).map((r) => r.event_id).sort();
    expect(left).toEqual([recent.id, pending.id].sort());
  });
});
