import { randomUUID } from 'node:crypto';
import { type AnyEvent, topology } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import { adminEventLog, planReplay, replayEvents, replayTarget } from '@hireflow/ops/replay';
import { startTestProducer, type TestProducer } from '@hireflow/testing/producer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidateRegistered, jobPosted, useNotificationsHarness, waitForSent } from './harness.ts';

// notifications' projections (candidates, postings) rebuilt from a replay of
// jobs' log into its inbox: the events arrive with their original ids, and
// the emails they once caused are not sent again (docs/replay.md).
const h = useNotificationsHarness('notif-replay');
const tenantId = randomUUID();
let producer: TestProducer;

beforeAll(async () => {
  // A producer of the test's own, in jobs' place: its relay publishes to the
  // harness's jobs-events topic (the live path), its log is read by the replay.
  producer = await startTestProducer('notif-replay-jobs', {
    sns: h.deps.sns,
    topicArns: { 'jobs-events': h.topology.topics['jobs-events']!.arn },
  });
});
afterAll(async () => {
  await producer?.close();
});

async function replay(types: string[]) {
  return replayEvents({
    sqs: h.deps.sqs,
    queue: await replayTarget(h.deps.sqs, h.topology.prefix, 'notifications-inbox'),
    plan: planReplay(topology, { queue: 'notifications-inbox', types }),
    sources: [adminEventLog({ producer: 'jobs', adminUrl: producer.adminUrl })],
    ratePerSecond: 0,
  });
}

interface Projections {
  candidates: { id: string; name: string; email: string; updated_at: Date }[];
  postings: { id: string; title: string; contact_email: string; updated_at: Date }[];
}

async function projections(): Promise<Projections> {
  const em = h.deps.orm.em.fork();
  return {
    candidates: await em.execute(
      'SELECT id, name, email, updated_at FROM candidate_projection WHERE tenant_id = ? ORDER BY id',
      [tenantId],
    ),
    postings: await em.execute(
      'SELECT id, title, contact_email, updated_at FROM posting_projection WHERE tenant_id = ? ORDER BY id',
      [tenantId],
    ),
  };
}

const candidates = Array.from({ length: 3 }, (_, i) =>
  candidateRegistered(tenantId, { name: `Candidate ${i}` }),
);
const postings = Array.from({ length: 2 }, (_, i) => jobPosted(tenantId, { title: `Role ${i}` }));
const events: AnyEvent[] = [...postings, ...candidates];
const welcomeKeys = candidates.map((c) => idempotencyKey('welcome-email', c.data.candidateId));
let rebuilt: Projections;

describe('rebuilding notifications from a replay', () => {
  it('brings dropped projections back from candidate.registered.v1 and job.posted.v1, and sends not one email again', async () => {
    await producer.commit(events);
    await producer.waitLogged(events.map((e) => e.id));
    const sent = await waitForSent(h, welcomeKeys);
    expect(h.smtp.emails).toHaveLength(3);
    const before = await projections();
    expect(before.candidates).toHaveLength(3);
    expect(before.postings).toHaveLength(2);

    // The projections are lost, and so is every record that the events were
    // handled (as after the keys' 15-day retention) and every finished email
    // task (BullMQ keeps them a day). What stays is the notification log,
    // kept through the 400-day replay horizon.
    const em = h.deps.orm.em.fork();
    await em.execute('TRUNCATE candidate_projection, posting_projection');
    await em.execute('DELETE FROM processed_message');
    await h.emails.tasks.queue.clean(0, 10_000, 'completed');
    for (const key of welcomeKeys) expect(await h.taskState(key)).toBeUndefined();

    const summary = await replay(['candidate.registered.v1', 'job.posted.v1']);
    expect(summary).toMatchObject({ interrupted: false, sent: expect.any(Number) });
    expect(summary.byType['candidate.registered.v1']).toBeGreaterThanOrEqual(3);
    for (const event of events) await h.spy.waitForCount({ eventId: event.id, outcome: 'handled' }, 2);

    rebuilt = await projections();
    const strip = (p: Projections) => ({
      candidates: p.candidates.map(({ updated_at: _, ...row }) => row),
      postings: p.postings.map(({ updated_at: _, ...row }) => row),
    });
    expect(strip(rebuilt)).toEqual(strip(before));
    // No email task was added for an intent the log says was sent, so none can go out.
    for (const key of welcomeKeys) expect(await h.taskState(key)).toBeUndefined();
    expect(h.smtp.emails).toHaveLength(3);
    expect(await h.notifications(welcomeKeys)).toEqual(expect.arrayContaining(sent));
  });

  it('applies an event replayed twice once', async () => {
    const summary = await replay(['candidate.registered.v1', 'job.posted.v1']);
    expect(summary.interrupted).toBe(false);
    for (const event of events) await h.spy.waitForCount({ eventId: event.id, outcome: 'handled' }, 3);
    // The second delivery of each id found it completed: the projection rows were not even touched.
    expect(await projections()).toEqual(rebuilt);
    const [row] = await h.deps.orm.em
      .fork()
      .execute<{ n: string }[]>(
        "SELECT count(*) AS n FROM processed_message WHERE key = ANY(?::text[]) AND status = 'completed'",
        [`{${events.map((e) => e.id).join(',')}}`],
      );
    expect(Number(row!.n)).toBe(events.length);
    expect(h.smtp.emails).toHaveLength(3);
  });
});
