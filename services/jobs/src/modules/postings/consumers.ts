import type { CloudEvent } from '@hireflow/contracts';
import type { MikroORM } from '@hireflow/db';
import { idempotent } from '@hireflow/idempotency';
import type { EventHandlers } from '@hireflow/messaging';
import type { Logger } from 'pino';
import { publishChange } from './routes.ts';
import type { StatusFeed } from './status-feed.ts';

/**
 * The jobs service's event handlers. Each runs through the idempotency
 * wrapper keyed by the event id, in one transaction with its write: a
 * redelivered event changes nothing twice.
 */
export function postingHandlers(orm: MikroORM, feed: StatusFeed, log: Logger): EventHandlers {
  return {
    'job.matched.v1': async (event: CloudEvent<'job.matched.v1'>) => {
      const { jobId, tenantId, matchCount, computedAt } = event.data;
      // Never backwards: a closed posting stays closed, and an older
      // computation arriving late does not replace a newer one.
      const changed = await idempotent(orm, { key: event.id, transactional: true }, async (em) => {
        const rows = await em.execute<{ id: string }[]>(
          `UPDATE job_posting
              SET status = 'matched', match_count = ?, matches_computed_at = ?, updated_at = now()
            WHERE id = ? AND tenant_id = ? AND status <> 'closed'
              AND (matches_computed_at IS NULL OR matches_computed_at < ?)
            RETURNING id`,
          [matchCount, computedAt, jobId, tenantId, computedAt],
        );
        return rows.length > 0;
      });
      if (changed) await publishChange(feed, jobId, 'matched', matchCount, log);
    },

    'match.found.v1': async (event: CloudEvent<'match.found.v1'>) => {
      const { matchId, jobId, candidateId, tenantId, score } = event.data;
      await idempotent(orm, { key: event.id, transactional: true }, async (em) => {
        // A recomputation may find the same pair again under a new match id:
        // keep the newest finding, whatever order the events arrive in.
        await em.execute(
          `INSERT INTO job_match (match_id, tenant_id, job_id, candidate_id, score, found_at)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (job_id, candidate_id) DO UPDATE
             SET score = EXCLUDED.score, match_id = EXCLUDED.match_id, found_at = EXCLUDED.found_at
             WHERE job_match.found_at <= EXCLUDED.found_at`,
          [matchId, tenantId, jobId, candidateId, score, event.time],
        );
        return true;
      });
    },

    'media.processed.v1': async (event: CloudEvent<'media.processed.v1'>) => {
      const { uploadId, tenantId, ownerType, ownerId, variants } = event.data;
      if (ownerType !== 'job') return;
      await idempotent(orm, { key: event.id, transactional: true }, async (em) => {
        await em.execute(
          'UPDATE job_posting SET logo = ?::jsonb, updated_at = now() WHERE id = ? AND tenant_id = ?',
          [JSON.stringify({ uploadId, variants }), ownerId, tenantId],
        );
        return true;
      });
    },
  };
}
