import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@hireflow/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeatureHashingEmbedder, ProfileEmbedder, score } from '../src/modules/index.ts';
import { type MatchingHarness, startMatchingHarness } from './harness.ts';
import { backendRole, candidate, fitting, role, unfitting } from './profiles.ts';

// Two workers in one process, each with its own in-memory indexes (as two
// processes have), both consuming the inbox and the match queue.
let h: MatchingHarness;
beforeAll(async () => {
  h = await startMatchingHarness('matching-race', { MATCH_CONCURRENCY: '8', INBOX_CONCURRENCY: '10' });
  await h.startWorker();
  await h.startWorker();
});
afterAll(async () => {
  await h?.close();
});

const roles = [
  backendRole,
  { ...backendRole, title: 'Backend Engineer, platform team', skills: ['TypeScript', 'Node.js', 'AWS'] },
  { ...backendRole, title: 'Node.js engineer', skills: [] },
];
const profiles = [...fitting, ...unfitting];

/** The pairs that must match, scored by the core directly. */
async function expectedPairs(
  postings: CloudEvent<'job.posted.v1'>[],
  candidates: CloudEvent<'candidate.registered.v1'>[],
) {
  const embedder = new ProfileEmbedder(new FeatureHashingEmbedder());
  const p = await embedder.embedPostings(postings.map((e) => e.data));
  const c = await embedder.embedCandidates(candidates.map((e) => e.data));
  const pairs: string[] = [];
  for (const [i, posting] of p.entries()) {
    for (const [j, cand] of c.entries()) {
      let cos = 0;
      for (let k = 0; k < posting.vector.length; k++) cos += posting.vector[k]! * cand.vector[k]!;
      const s = score({ cosine: cos, postingSkills: posting.skills, candidateSkills: cand.skills });
      if (s.score >= h.config.MATCH_THRESHOLD) {
        pairs.push(`${postings[i]!.data.jobId}/${candidates[j]!.data.candidateId}`);
      }
    }
  }
  return pairs.sort();
}

describe('postings and candidates arriving at the same moment', () => {
  it.each([1, 2, 3])('are matched exactly once per fitting pair, across two workers (round %i)', async () => {
    const tenantId = randomUUID();
    const postings = roles.map((r) => role(tenantId, r));
    const candidates = profiles.map((p) => candidate(tenantId, p));
    const all = [...postings, ...candidates].sort(() => Math.random() - 0.5);
    await Promise.all(all.map((event) => h.publish(event)));
    await h.waitForComputations({ tenantId, outcome: 'computed' }, all.length);

    const expected = await expectedPairs(postings, candidates);
    expect(expected.length).toBeGreaterThanOrEqual(6);
    const em = h.deps.orm.em.fork();
    const rows = await em.execute<{ posting_id: string; candidate_id: string }[]>(
      'SELECT posting_id, candidate_id FROM posting_match WHERE tenant_id = ?',
      [tenantId],
    );
    expect(rows.map((r) => `${r.posting_id}/${r.candidate_id}`).sort()).toEqual(expected);

    // One match.found.v1 per match, and each posting's last job.matched.v1 carries its count.
    for (const posting of postings) {
      const { jobId: postingId } = posting.data;
      const outbox = await h.outboxAbout(postingId);
      const found = outbox.filter((r) => r.type === 'match.found.v1');
      const mine = expected.filter((pair) => pair.startsWith(postingId));
      expect(
        found.map((r) => `${postingId}/${(r.payload.data as { candidateId: string }).candidateId}`).sort(),
      ).toEqual(mine);
      const matched = outbox
        .filter((r) => r.type === 'job.matched.v1')
        .map((r) => r.payload.data as { matchCount: number; computedAt: string });
      expect(matched.at(-1)!.matchCount).toBe(mine.length);
      // counts grow, times strictly increase: the job board applies them in order
      for (let i = 1; i < matched.length; i++) {
        expect(matched[i]!.matchCount).toBeGreaterThan(matched[i - 1]!.matchCount);
        expect(Date.parse(matched[i]!.computedAt)).toBeGreaterThan(Date.parse(matched[i - 1]!.computedAt));
      }
    }
  });

  it('keeps each worker’s index current with what the other one stored', async () => {
    const tenantId = randomUUID();
    const candidates = fitting.map((p) => candidate(tenantId, p));
    await Promise.all(candidates.map((event) => h.publish(event)));
    await h.waitForComputations({ tenantId, kind: 'candidate' }, 3);
    // Several postings: whichever worker computes each, it sees all three candidates.
    const postings = [1, 2, 3, 4].map(() => role(tenantId));
    await Promise.all(postings.map((event) => h.publish(event)));
    const done = await h.waitForComputations({ tenantId, kind: 'posting' }, 4);
    expect(done.map((c) => c.newMatches)).toEqual([3, 3, 3, 3]);
  });
});
