// What a computation announces, through the outbox of its transaction (`enqueueEvents`).
import { createEvent, type EventLane } from '@hireflow/contracts';
import type { NewMatch } from './store.ts';

const SOURCE = 'hireflow/matching';

/**
 * One match.found.v1 per new match (its time is when it was found), in the
 * lane of the computation that found it: an import's or a replay's
 * computations announce in the bulk lane, so what they cause downstream (the
 * emails, the webhooks) waits behind interactive work too (docs/fairness.md).
 */
export function matchesFound(matches: NewMatch[], foundAt: Date, lane: EventLane = 'interactive') {
  return matches.map((match) =>
    createEvent(
      'match.found.v1',
      {
        matchId: match.id,
        jobId: match.postingId,
        candidateId: match.candidateId,
        tenantId: match.tenantId,
        score: match.score,
      },
      { source: SOURCE, subject: match.postingId, time: foundAt, ...bulk(lane) },
    ),
  );
}

/** job.matched.v1: the posting's match count after a computation that changed it (or its first). */
export function postingMatched(
  posting: { tenantId: string; postingId: string; matchCount: number; computedAt: Date },
  lane: EventLane = 'interactive',
) {
  return createEvent(
    'job.matched.v1',
    {
      jobId: posting.postingId,
      tenantId: posting.tenantId,
      matchCount: posting.matchCount,
      computedAt: posting.computedAt.toISOString(),
    },
    { source: SOURCE, subject: posting.postingId, ...bulk(lane) },
  );
}

/** The envelope's lane: only bulk is written (absent means interactive). */
const bulk = (lane: EventLane) => (lane === 'bulk' ? { lane } : {});

/** A score as the catalog takes it: in [0, 1] (float rounding can put a perfect cosine a hair above 1). */
export function clampScore(score: number): number {
  return Math.min(1, Math.max(0, score));
}
