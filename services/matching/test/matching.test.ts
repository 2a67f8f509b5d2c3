import { randomUUID } from 'node:crypto';
import { type CloudEvent, createEvent } from '@hireflow/contracts';
import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { useMatchingHarness } from './harness.ts';
import { candidate, fitting, role, unfitting } from './profiles.ts';

const h = useMatchingHarness('matching');

const tenantId = randomUUID();
const otherTenantId = randomUUID();
const good = fitting.map((p) => candidate(tenantId, p));
const bad = unfitting.slice(0, 2).map((p) => candidate(tenantId, p));
const foreign = fitting.map((p) => candidate(otherTenantId, p));
const posted = role(tenantId);
const postingId = posted.data.jobId;
const ids = (events: { data: { candidateId: string } }[]) => events.map((e) => e.data.candidateId);

interface Listing {
  status: string;
  matchCount: number;
  computedAt: string | null;
  items: { matchId: string; candidateId: string; score: number; foundAt: string }[];
  nextCursor: string | null;
}

async function listing(id: string, query = ''): Promise<Listing> {
  const res = await h.admin.inject({ method: 'GET', url: `/internal/matches?postingId=${id}${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Listing>();
}

/** Waits until matching has published `count` events about the posting; returns them by type. */
async function published(id: string, count: number) {
  const events = await waitFor(() => {
    const about = h.eventsAbout(id);
    return about.length >= count ? about : undefined;
  });
  return {
    found: events.filter((e) => e.type === 'match.found.v1') as CloudEvent<'match.found.v1'>[],
    matched: events.filter((e) => e.type === 'job.matched.v1') as CloudEvent<'job.matched.v1'>[],
  };
}

const closedEvent = (tenant: string, postingId: string) =>
  createEvent(
    'job.closed.v1',
    { jobId: postingId, tenantId: tenant, closedAt: new Date().toISOString() },
    { source: 'hireflow/jobs', subject: postingId },
  );

describe('matching, end to end through the emulator, Postgres and Redis', () => {
  it('matches a posting with exactly its 3 fitting candidates, best first, and says so once', async () => {
    await Promise.all([...good, ...bad, ...foreign].map((event) => h.publish(event)));
    await h.waitForComputations({ kind: 'candidate', tenantId, outcome: 'computed' }, 5);
    await h.waitForComputations({ kind: 'candidate', tenantId: otherTenantId, outcome: 'computed' }, 3);

    await h.publish(posted);
    const [computation] = await h.waitForComputations({ kind: 'posting', id: postingId });
    expect(computation).toMatchObject({ outcome: 'computed', newMatches: 3, postingsChanged: 1 });

    const list = await listing(postingId);
    expect(list).toMatchObject({ status: 'open', matchCount: 3 });
    // Scores 0.755, 0.735, 0.631 (test/profiles.ts): the order of `fitting`.
    expect(list.items.map((m) => m.candidateId)).toEqual(ids(good));
    const scores = list.items.map((m) => m.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(Math.min(...scores)).toBeGreaterThanOrEqual(0.4);

    const { found, matched } = await published(postingId, 4);
    expect(matched).toHaveLength(1);
    expect(matched[0]!.data).toEqual({
      jobId: postingId,
      tenantId,
      matchCount: 3,
      computedAt: list.computedAt,
    });
    expect(found.map((e) => e.data.candidateId).sort()).toEqual(ids(good).sort());
    for (const event of found) {
      const listed = list.items.find((m) => m.matchId === event.data.matchId)!;
      expect(event.data).toMatchObject({ tenantId, jobId: postingId, score: listed.score });
      expect(event.time).toBe(listed.foundAt);
    }
    // The transaction that committed the matches wrote these four events and no other.
    expect((await h.outboxAbout(postingId)).map((r) => r.type).sort()).toEqual([
      'job.matched.v1',
      'match.found.v1',
      'match.found.v1',
      'match.found.v1',
    ]);
  });

  it('adds nothing when the same job.posted.v1 comes 3 times, or comes again as a new event', async () => {
    await h.publish(posted);
    await h.publish(posted);
    await h.spy.waitForCount({ eventId: posted.id, outcome: 'handled' }, 3);
    // Another event for the same posting is another trigger: it runs (never swallowed), and finds nothing to do.
    const replayed = role(tenantId, { jobId: postingId });
    await h.publish(replayed);
    await h.waitForComputations({ kind: 'posting', id: postingId, outcome: 'skipped' });
    expect(h.computations.filter((c) => c.id === postingId)).toHaveLength(2);
    expect(await h.outboxAbout(postingId)).toHaveLength(4);
    expect(await listing(postingId)).toMatchObject({ matchCount: 3 });
  });

  it('matches a candidate registered later and says so with the new count', async () => {
    const first = await listing(postingId);
    const late = candidate(tenantId, fitting[0]!); // the best profile again: a tie, broken by time
    await h.publish(late);
    const [computation] = await h.waitForComputations({ id: late.data.candidateId });
    expect(computation).toMatchObject({ outcome: 'computed', newMatches: 1, postingsChanged: 1 });

    const { found, matched } = await published(postingId, 6);
    expect(matched.map((e) => e.data.matchCount)).toEqual([3, 4]);
    expect(Date.parse(matched[1]!.data.computedAt)).toBeGreaterThan(Date.parse(matched[0]!.data.computedAt));
    expect(found.at(-1)!.data.candidateId).toBe(late.data.candidateId);

    const list = await listing(postingId);
    expect(list).toMatchObject({ status: 'open', matchCount: 4, computedAt: matched[1]!.data.computedAt });
    expect(list.items.map((m) => m.candidateId)).toEqual([
      good[0]!.data.candidateId,
      late.data.candidateId,
      good[1]!.data.candidateId,
      good[2]!.data.candidateId,
    ]);
    expect(list.items[1]!.score).toBe(list.items[0]!.score);
    expect(list.items.slice(0, 3).map((m) => m.matchId)).toContain(first.items[0]!.matchId);
  });

  it('pages the internal listing by a cursor in the same order', async () => {
    const all = (await listing(postingId)).items;
    const paged: Listing['items'] = [];
    let cursor: string | null = null;
    do {
      const page: Listing = await listing(postingId, `&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all);
    const bad = await h.admin.inject({
      method: 'GET',
      url: `/internal/matches?postingId=${postingId}&cursor=nope`,
    });
    expect(bad.statusCode).toBe(400);
    const unknown = await h.admin.inject({
      method: 'GET',
      url: `/internal/matches?postingId=${randomUUID()}`,
    });
    expect(unknown.statusCode).toBe(404);
    const notId = await h.admin.inject({ method: 'GET', url: '/internal/matches?postingId=x' });
    expect(notId.statusCode).toBe(400);
  });

  it('never matches across tenants', async () => {
    const theirs = role(otherTenantId);
    await h.publish(theirs);
    await h.waitForComputations({ kind: 'posting', id: theirs.data.jobId });
    const list = await listing(theirs.data.jobId);
    expect(list.items.map((m) => m.candidateId).sort()).toEqual(ids(foreign).sort());
    // The first posting gained nothing from the other tenant's candidates.
    expect((await listing(postingId)).matchCount).toBe(4);
  });

  it('gives a closed posting no new match', async () => {
    const closed = closedEvent(tenantId, postingId);
    await h.publish(closed);
    await h.spy.waitForHandled(closed.id);
    const late = candidate(tenantId, fitting[1]!);
    await h.publish(late);
    const [computation] = await h.waitForComputations({ id: late.data.candidateId });
    expect(computation).toMatchObject({ outcome: 'computed', newMatches: 0, postingsChanged: 0 });
    expect(await listing(postingId)).toMatchObject({ status: 'closed', matchCount: 4 });
    expect(await h.outboxAbout(postingId)).toHaveLength(6);
  });

  it('never computes a posting whose job.closed.v1 came before its job.posted.v1', async () => {
    const early = role(tenantId);
    const closed = closedEvent(tenantId, early.data.jobId);
    await h.publish(closed);
    await h.spy.waitForHandled(closed.id);
    await h.publish(early);
    const [computation] = await h.waitForComputations({ id: early.data.jobId });
    expect(computation).toMatchObject({ outcome: 'skipped', newMatches: 0 });
    expect(await listing(early.data.jobId)).toMatchObject({ status: 'closed', matchCount: 0, items: [] });
    expect(await h.outboxAbout(early.data.jobId)).toEqual([]);
  });

  it('tells a posting that nothing fits with a job.matched.v1 of 0, so it leaves processing', async () => {
    const lonely = role(randomUUID());
    await h.publish(lonely);
    await h.waitForComputations({ id: lonely.data.jobId, outcome: 'computed' });
    const { matched } = await published(lonely.data.jobId, 1);
    expect(matched.map((e) => e.data.matchCount)).toEqual([0]);
  });
});
