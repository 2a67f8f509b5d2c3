import { randomUUID } from 'node:crypto';
import type { CloudEvent, EventType } from '@hireflow/contracts';
import { createEvent } from '@hireflow/contracts';
import { IdempotencyInProgressError } from '@hireflow/idempotency';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingHandlers } from '../src/modules/inbox/consumers.ts';
import { StatusFeed } from '../src/modules/postings/status-feed.ts';
import { type JobsHarness, startJobsHarness, validCandidate, validPosting } from './harness.ts';

let h: JobsHarness;
let feed: StatusFeed;
let handlers: ReturnType<typeof postingHandlers>;
const context = { messageId: 'm', receiveCount: 1, queueName: 'q', attributes: {} };

beforeAll(async () => {
  h = await startJobsHarness('jobs-consumers');
  feed = new StatusFeed(h.deps.redis, h.config.REDIS_PREFIX);
  handlers = postingHandlers(h.deps.orm, feed, pino({ level: 'silent' }), {
    mediaPublicUrl: h.config.MEDIA_PUBLIC_URL,
  });
});
afterAll(async () => {
  await feed?.close();
  await h?.close();
});

async function deliver<T extends EventType>(event: CloudEvent<T>) {
  const handler = handlers[event.type] as (e: CloudEvent<T>, c: typeof context) => Promise<void>;
  await handler(event, context);
}

async function newPosting() {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: h.tenants.a.auth,
    payload: validPosting,
  });
  return res.json<{ id: string }>().id;
}

const getPosting = async (id: string) =>
  (await h.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: h.tenants.a.auth })).json();

const matched = (postingId: string, matchCount: number, computedAt: string) =>
  createEvent(
    'job.matched.v1',
    { jobId: postingId, tenantId: h.tenants.a.tenantId, matchCount, computedAt },
    { source: 'hireflow/matching', subject: postingId },
  );

describe('job.matched.v1', () => {
  it('moves the posting to matched with its count; the same event twice (even at once) changes it once', async () => {
    const postingId = await newPosting();
    const event = matched(postingId, 3, '2026-11-29T10:00:00.000Z');
    const changes: unknown[] = [];
    const unsubscribe = await feed.subscribe(postingId, (c) => changes.push(c));
    // Concurrent duplicates: one runs; the others are told to retry later (retryable), never run it.
    const outcomes = await Promise.allSettled([deliver(event), deliver(event), deliver(event)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(IdempotencyInProgressError);
    }
    await deliver(event);
    expect(await getPosting(postingId)).toMatchObject({ status: 'matched', matchCount: 3 });
    const keys = await h.deps.orm.em
      .fork()
      .execute('SELECT key FROM processed_message WHERE key = ?', [event.id]);
    expect(keys).toHaveLength(1);
    await unsubscribe();
  });

  it('never moves backwards: an older computation arriving late is ignored', async () => {
    const postingId = await newPosting();
    await deliver(matched(postingId, 5, '2026-11-29T12:00:00.000Z'));
    await deliver(matched(postingId, 2, '2026-11-29T11:00:00.000Z'));
    expect(await getPosting(postingId)).toMatchObject({ status: 'matched', matchCount: 5 });
    await deliver(matched(postingId, 7, '2026-11-29T13:00:00.000Z'));
    expect(await getPosting(postingId)).toMatchObject({ status: 'matched', matchCount: 7 });
  });

  it('never reopens a closed posting', async () => {
    const postingId = await newPosting();
    await h.app.inject({ method: 'POST', url: `/v1/jobs/${postingId}/close`, headers: h.tenants.a.auth });
    await deliver(matched(postingId, 4, '2026-11-29T12:00:00.000Z'));
    expect(await getPosting(postingId)).toMatchObject({ status: 'closed', matchCount: null });
  });

  it('ignores an event naming another tenant', async () => {
    const postingId = await newPosting();
    const foreign = createEvent(
      'job.matched.v1',
      {
        jobId: postingId,
        tenantId: h.tenants.b.tenantId,
        matchCount: 9,
        computedAt: '2026-11-29T12:00:00.000Z',
      },
      { source: 'hireflow/matching' },
    );
    await deliver(foreign);
    expect(await getPosting(postingId)).toMatchObject({ status: 'processing' });
  });
});

describe('match.found.v1', () => {
  it('feeds the matches read model of the posting and the candidate, once per event', async () => {
    const postingId = await newPosting();
    const reg = await h.app.inject({
      method: 'POST',
      url: '/v1/candidates',
      headers: h.tenants.a.auth,
      payload: { ...validCandidate, email: `${randomUUID()}@example.test` },
    });
    const candidateId = reg.json().id;
    const found = createEvent(
      'match.found.v1',
      { matchId: randomUUID(), jobId: postingId, candidateId, tenantId: h.tenants.a.tenantId, score: 0.87 },
      { source: 'hireflow/matching' },
    );
    await deliver(found);
    await deliver(found);
    const byJob = await h.app.inject({
      method: 'GET',
      url: `/v1/jobs/${postingId}/matches`,
      headers: h.tenants.a.auth,
    });
    expect(byJob.json().items).toEqual([
      expect.objectContaining({
        candidateId,
        score: 0.87,
        candidate: expect.objectContaining({ name: validCandidate.name }),
      }),
    ]);
    const byCandidate = await h.app.inject({
      method: 'GET',
      url: `/v1/candidates/${candidateId}/matches`,
      headers: h.tenants.a.auth,
    });
    expect(byCandidate.json().items).toEqual([
      expect.objectContaining({
        jobId: postingId,
        job: expect.objectContaining({ title: validPosting.title }),
      }),
    ]);
  });

  it('pages matches best first, ties by the time they were found', async () => {
    const postingId = await newPosting();
    // [score, found at]: three ties at 0.7 found at different times, two of them at the same instant
    const found: [number, string][] = [
      [0.2, '2026-11-29T10:00:00.000Z'],
      [0.7, '2026-11-29T12:00:00.000Z'],
      [0.9, '2026-11-29T11:00:00.000Z'],
      [0.7, '2026-11-29T10:30:00.000Z'],
      [0.7, '2026-11-29T12:00:00.000Z'],
      [0.1, '2026-11-29T09:00:00.000Z'],
    ];
    const matchIds = new Map<string, [number, string]>();
    for (const [score, time] of found) {
      const event = createEvent(
        'match.found.v1',
        {
          matchId: randomUUID(),
          jobId: postingId,
          candidateId: randomUUID(),
          tenantId: h.tenants.a.tenantId,
          score,
        },
        { source: 'hireflow/matching', time },
      );
      matchIds.set(event.data.matchId, [score, time]);
      await deliver(event);
    }
    const seen: { matchId: string; score: number; foundAt: string }[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/jobs/${postingId}/matches?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const body = (await h.app.inject({ method: 'GET', url, headers: h.tenants.a.auth })).json();
      seen.push(...body.items);
      cursor = body.nextCursor;
    } while (cursor);
    const expected = [...matchIds]
      .sort(([a, [sa, ta]], [b, [sb, tb]]) => sb - sa || ta.localeCompare(tb) || a.localeCompare(b))
      .map(([matchId, [score, foundAt]]) => ({ matchId, score, foundAt }));
    expect(seen.map(({ matchId, score, foundAt }) => ({ matchId, score, foundAt }))).toEqual(expected);
  });
});

describe('media.processed.v1', () => {
  const variantsOf = (uploadId: string) => [
    {
      name: 'thumb',
      width: 128,
      height: 96,
      contentType: 'image/webp',
      url: `http://127.0.0.1:3004/media/${uploadId}/thumb.webp`,
    },
  ];
  const processed = (
    owner: { ownerType: 'job' | 'candidate'; ownerId: string },
    uploadedAt: string,
    tenantId = h.tenants.a.tenantId,
  ) => {
    const uploadId = randomUUID();
    const event = createEvent(
      'media.processed.v1',
      { uploadId, tenantId, ...owner, uploadedAt, variants: variantsOf(uploadId) },
      { source: 'hireflow/media', subject: uploadId },
    );
    return { event, image: { uploadId, variants: variantsOf(uploadId) } };
  };
  const newCandidate = async () =>
    (
      await h.app.inject({
        method: 'POST',
        url: '/v1/candidates',
        headers: h.tenants.a.auth,
        payload: { ...validCandidate, email: `${randomUUID()}@example.test` },
      })
    ).json<{ id: string }>().id;
  const getCandidate = async (id: string) =>
    (await h.app.inject({ method: 'GET', url: `/v1/candidates/${id}`, headers: h.tenants.a.auth })).json();

  it("sets a posting's logo and a candidate's photo; an upload without an owner changes nothing", async () => {
    const postingId = await newPosting();
    const candidateId = await newCandidate();
    expect((await getCandidate(candidateId)).photo).toBeNull();
    const logo = processed({ ownerType: 'job', ownerId: postingId }, '2026-11-29T10:00:00.000Z');
    const photo = processed({ ownerType: 'candidate', ownerId: candidateId }, '2026-11-29T10:00:00.000Z');
    await deliver(logo.event);
    await deliver(photo.event);
    const {
      ownerType: _t,
      ownerId: _o,
      ...ownerless
    } = processed({ ownerType: 'job', ownerId: postingId }, '2026-11-29T11:00:00.000Z').event.data;
    await deliver(createEvent('media.processed.v1', ownerless, { source: 'hireflow/media' }));
    expect((await getPosting(postingId)).logo).toEqual(logo.image);
    expect((await getCandidate(candidateId)).photo).toEqual(photo.image);
  });

  it('keeps the newer image when an older event arrives late, whatever the owner type', async () => {
    const postingId = await newPosting();
    const candidateId = await newCandidate();
    for (const [owner, read] of [
      [{ ownerType: 'job', ownerId: postingId }, async () => (await getPosting(postingId)).logo],
      [{ ownerType: 'candidate', ownerId: candidateId }, async () => (await getCandidate(candidateId)).photo],
    ] as const) {
      const older = processed(owner, '2026-11-29T10:00:00.000Z');
      const newer = processed(owner, '2026-11-29T10:00:01.000Z');
      await deliver(newer.event);
      await deliver(older.event);
      expect(await read()).toEqual(newer.image);
      const newest = processed(owner, '2026-11-29T10:05:00.000Z');
      await deliver(newest.event);
      await deliver(newer.event); // a redelivery changes nothing either
      expect(await read()).toEqual(newest.image);
    }
  });

  it('ignores an event whose owner belongs to another tenant', async () => {
    const postingId = await newPosting();
    const candidateId = await newCandidate();
    await deliver(
      processed({ ownerType: 'job', ownerId: postingId }, '2026-11-29T10:00:00.000Z', h.tenants.b.tenantId)
        .event,
    );
    await deliver(
      processed(
        { ownerType: 'candidate', ownerId: candidateId },
        '2026-11-29T10:00:00.000Z',
        h.tenants.b.tenantId,
      ).event,
    );
    expect((await getPosting(postingId)).logo).toBeNull();
    expect((await getCandidate(candidateId)).photo).toBeNull();
  });

  it.each([
    ['another origin', () => 'https://evil.example/logo.webp'],
    ['another path of the media origin', () => 'http://127.0.0.1:3004/v1/unsubscribe?token=x'],
    [
      'a dot segment out of /media/',
      (id: string) => `http://127.0.0.1:3004/media/${id}/../../v1/unsubscribe`,
    ],
    ['a query', (id: string) => `http://127.0.0.1:3004/media/${id}/thumb.webp?token=x`],
    ['another upload', () => `http://127.0.0.1:3004/media/${randomUUID()}/thumb.webp`],
  ])(
    'API7/API10: refuses as poison a variant URL outside its upload under /media/: %s',
    async (_label, urlOf) => {
      const postingId = await newPosting();
      const { event } = processed({ ownerType: 'job', ownerId: postingId }, '2026-11-29T10:00:00.000Z');
      const forged = createEvent(
        'media.processed.v1',
        { ...event.data, variants: [{ ...event.data.variants[0]!, url: urlOf(event.data.uploadId) }] },
        { source: 'hireflow/media' },
      );
      await expect(deliver(forged)).rejects.toMatchObject({ name: 'UnrecoverableError' });
      expect((await getPosting(postingId)).logo).toBeNull();
    },
  );
});

describe('review fixes', () => {
  it('keeps the newest match.found.v1 of a pair whatever the arrival order', async () => {
    const postingId = await newPosting();
    const candidateId = randomUUID();
    const found = (score: number, time: string) =>
      createEvent(
        'match.found.v1',
        { matchId: randomUUID(), jobId: postingId, candidateId, tenantId: h.tenants.a.tenantId, score },
        { source: 'hireflow/matching', time },
      );
    await deliver(found(0.9, '2026-11-29T12:00:00.000Z'));
    await deliver(found(0.3, '2026-11-29T11:00:00.000Z')); // older, arrives late
    const res = await h.app.inject({
      method: 'GET',
      url: `/v1/jobs/${postingId}/matches`,
      headers: h.tenants.a.auth,
    });
    expect(res.json().items.map((m: { score: number }) => m.score)).toEqual([0.9]);
  });

  it('the auto-close sweep closes overdue postings once, emitting job.closed.v1 once', async () => {
    const { closeOverduePostings } = await import('../src/modules/postings/service.ts');
    const postingId = await newPosting();
    await h.deps.orm.em
      .fork()
      .execute(`UPDATE job_posting SET close_at = now() - interval '1 minute' WHERE id = ?`, [postingId]);
    expect(await closeOverduePostings(h.deps.orm.em.fork())).toContain(postingId);
    expect(await closeOverduePostings(h.deps.orm.em.fork())).not.toContain(postingId);
    expect(await getPosting(postingId)).toMatchObject({ status: 'closed' });
    const closed = await h.deps.orm.em
      .fork()
      .execute('SELECT 1 FROM outbox WHERE type = ? AND payload->>? = ?', [
        'job.closed.v1',
        'subject',
        postingId,
      ]);
    expect(closed).toHaveLength(1);
  });
});
