import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@hireflow/contracts';
import { LANE_SPAN, taskIdFor } from '@hireflow/messaging';
import { waitFor } from '@hireflow/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { computationKey, createMatchQueue } from '../src/modules/matches/queue.ts';
import { useMatchingHarness } from './harness.ts';
import { candidate, fitting, role } from './profiles.ts';

// Computations are taken round-robin by tenant, interactive before bulk
// (docs/fairness.md): a posting or a registration alone is interactive, an
// import's registration (its event's `lane` extension) bulk.
const h = useMatchingHarness('matching-lanes');
let inspect: ReturnType<typeof createMatchQueue> | undefined;
afterAll(async () => {
  await inspect?.close();
});

describe('computation lanes', () => {
  it("puts a posting's computation in the interactive lane and an imported candidate's in the bulk lane", async () => {
    inspect = createMatchQueue({ connection: h.deps.redis, prefix: h.config.REDIS_PREFIX, attempts: 1 });
    const tenantId = randomUUID();
    const posted = role(tenantId);
    const imported = { ...candidate(tenantId, fitting[0]!), lane: 'bulk' as const };
    await h.publish(imported);
    await h.publish(posted);
    await h.waitForComputations({ kind: 'candidate', id: imported.data.candidateId });
    await h.waitForComputations({ kind: 'posting', id: posted.data.jobId });
    const priority = async (kind: 'posting' | 'candidate', eventId: string) =>
      (await inspect!.tasks.queue.getJob(taskIdFor(computationKey(kind, eventId))))!.opts.priority!;
    expect(await priority('posting', posted.id)).toBeLessThan(LANE_SPAN);
    expect(await priority('candidate', imported.id)).toBeGreaterThan(LANE_SPAN);
  });

  it("announces what a bulk computation finds in the bulk lane, a posting's computation in the interactive one", async () => {
    const tenantId = randomUUID();
    const posted = role(tenantId);
    await h.publish(posted);
    await h.waitForComputations({ kind: 'posting', id: posted.data.jobId });
    // An imported candidate who fits the open role: the recomputation is bulk, and so is what it announces.
    const imported = { ...candidate(tenantId, fitting[0]!), lane: 'bulk' as const };
    await h.publish(imported);
    await h.waitForComputations({ kind: 'candidate', id: imported.data.candidateId });
    const events = await waitFor(() => {
      const about = h.eventsAbout(posted.data.jobId);
      return about.length >= 3 ? about : undefined;
    });
    const lanes = events.map((e) => `${e.type} ${e.lane ?? 'interactive'}`).sort();
    // The posting's own computation (no match yet): job.matched, interactive; the import's: bulk.
    expect(lanes).toEqual(['job.matched.v1 bulk', 'job.matched.v1 interactive', 'match.found.v1 bulk']);
    const found = events.find((e) => e.type === 'match.found.v1') as CloudEvent<'match.found.v1'>;
    expect(found.data.candidateId).toBe(imported.data.candidateId);
  });
});
