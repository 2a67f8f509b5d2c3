import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMatchQueue } from '../src/modules/matches/queue.ts';
import { requeueUncomputed } from '../src/modules/matches/sweep.ts';
import { insertCandidate, insertPosting } from '../src/modules/profiles/store.ts';
import { type MatchingHarness, startMatchingHarness } from './harness.ts';
import { candidate, fitting, role } from './profiles.ts';

let h: MatchingHarness;
beforeAll(async () => {
  h = await startMatchingHarness('matching-limits', { MATCH_LIMIT: '2' });
  await h.startWorker();
});
afterAll(async () => {
  await h?.close();
});

describe('the limit of a first computation', () => {
  it('keeps a posting’s best MATCH_LIMIT candidates, and adds any fitting candidate registered after', async () => {
    const tenantId = randomUUID();
    const candidates = fitting.map((p) => candidate(tenantId, p));
    await Promise.all(candidates.map((event) => h.publish(event)));
    await h.waitForComputations({ tenantId, kind: 'candidate' }, 3);
    const posted = role(tenantId);
    await h.publish(posted);
    const [first] = await h.waitForComputations({ id: posted.data.jobId });
    expect(first).toMatchObject({ outcome: 'computed', newMatches: 2 });
    const late = candidate(tenantId, fitting[2]!);
    await h.publish(late);
    const [added] = await h.waitForComputations({ id: late.data.candidateId });
    expect(added).toMatchObject({ newMatches: 1, postingsChanged: 1 });
    const counts = (await h.outboxAbout(posted.data.jobId))
      .filter((r) => r.type === 'job.matched.v1')
      .map((r) => (r.payload.data as { matchCount: number }).matchCount);
    expect(counts).toEqual([2, 3]);
  });
});

describe('the sweep', () => {
  it('adds again the computation of a posting or candidate whose task was lost', async () => {
    const tenantId = randomUUID();
    const em = h.deps.orm.em.fork();
    // Stored by the inbox handler, but the process died before adding their tasks.
    const candidateId = randomUUID();
    await insertCandidate(em, { candidateId, tenantId, ...fitting[0]!, eventId: randomUUID() });
    const { jobId: postingId, ...posting } = role(tenantId).data;
    await insertPosting(em, { postingId, ...posting, eventId: randomUUID() });
    const queue = createMatchQueue({ connection: h.deps.redis, prefix: h.config.REDIS_PREFIX, attempts: 1 });
    try {
      // Not yet: they are younger than the sweep's age.
      expect(await requeueUncomputed(em, queue, { olderThanMs: 3_600_000 })).toEqual([]);
      await em.execute(`UPDATE candidate SET created_at = now() - interval '2 hours' WHERE id = ?`, [
        candidateId,
      ]);
      await em.execute(`UPDATE posting SET created_at = now() - interval '1 hour' WHERE id = ?`, [postingId]);
      expect(await requeueUncomputed(em, queue, { olderThanMs: 60_000 })).toEqual([
        `candidate:${candidateId}`,
        `posting:${postingId}`,
      ]);
      await h.waitForComputations({ id: candidateId, outcome: 'computed' });
      await h.waitForComputations({ id: postingId, outcome: 'computed' });
      // Computed: nothing left to sweep.
      expect(await requeueUncomputed(em, queue, { olderThanMs: 60_000 })).toEqual([]);
    } finally {
      await queue.close();
    }
  });
});
