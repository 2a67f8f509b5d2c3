import { randomUUID } from 'node:crypto';
import { LANE_SPAN, taskIdFor } from '@hireflow/messaging';
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
});
