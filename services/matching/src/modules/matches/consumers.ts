import type { Database } from '@hireflow/db';
import { handleOnce } from '@hireflow/idempotency';
import { type EventHandlers, laneOf } from '@hireflow/messaging';
import { closePosting, insertCandidate, insertPosting, lockTenant } from '../profiles/store.ts';
import type { MatchQueue } from './queue.ts';

/**
 * The matching service's inbox handlers. Each runs once per event id through
 * the idempotency wrapper, in one transaction with its write; a posting or
 * candidate then becomes a computation on the `match` queue. The add runs on
 * every delivery, also when a redelivery finds the event handled (the
 * process may have died between the commit and the add): its task id derives
 * from the event, so adding it twice is a no-op.
 */
export function matchingHandlers(options: { orm: Database; queue: MatchQueue }): EventHandlers {
  const { orm, queue } = options;

  return {
    'job.posted.v1': async (event, context) => {
      const { jobId: postingId, tenantId, title, description, skills, postedAt } = event.data;
      await handleOnce(orm, event, (em) =>
        insertPosting(em, { postingId, tenantId, title, description, skills, postedAt, eventId: event.id }),
      );
      await queue.add({ kind: 'posting', tenantId, postingId }, event.id, laneOf(event, context));
    },

    // Only what matching reads: never the candidate's name or email.
    'candidate.registered.v1': async (event, context) => {
      const { candidateId, tenantId, headline, skills } = event.data;
      await handleOnce(orm, event, (em) =>
        insertCandidate(em, { candidateId, tenantId, headline, skills, eventId: event.id }),
      );
      await queue.add({ kind: 'candidate', tenantId, candidateId }, event.id, laneOf(event, context));
    },

    // Nothing to compute: the closed row is the change every worker's index
    // learns at its next sync, and a posting closed before its computation
    // never gets one.
    'job.closed.v1': async (event) => {
      await handleOnce(orm, event, async (tx) => {
        await lockTenant(tx, event.data.tenantId);
        const { jobId: postingId, tenantId, closedAt } = event.data;
        return closePosting(tx, { postingId, tenantId, closedAt });
      });
    },
  };
}
