import type { CloudEvent } from '@hireflow/contracts';
import type { MikroORM } from '@hireflow/db';
import { idempotent } from '@hireflow/idempotency';
import type { EventHandlers, Logger } from '@hireflow/messaging';
import type { StatusFeed } from './status-feed.ts';
import { applyMatched, setLogo, upsertMatch } from './store.ts';

/**
 * The jobs service's event handlers. Each runs through the idempotency
 * wrapper keyed by the event id, in one transaction with its write: a
 * redelivered event changes nothing twice.
 */
export function postingHandlers(orm: MikroORM, feed: StatusFeed, log: Logger): EventHandlers {
  return {
    'job.matched.v1': async (event: CloudEvent<'job.matched.v1'>) => {
      const changed = await idempotent(orm, { key: event.id, transactional: true }, (em) =>
        applyMatched(em, event.data),
      );
      if (changed) {
        const { jobId, matchCount } = event.data;
        await feed.notify({ jobId, status: 'matched', matchCount }, log);
      }
    },

    'match.found.v1': async (event: CloudEvent<'match.found.v1'>) => {
      await idempotent(orm, { key: event.id, transactional: true }, async (em) => {
        await upsertMatch(em, { ...event.data, foundAt: event.time });
        return true;
      });
    },

    'media.processed.v1': async (event: CloudEvent<'media.processed.v1'>) => {
      const { uploadId, tenantId, ownerType, ownerId, variants } = event.data;
      if (ownerType !== 'job') return;
      await idempotent(orm, { key: event.id, transactional: true }, async (em) => {
        await setLogo(em, tenantId, ownerId, { uploadId, variants });
        return true;
      });
    },
  };
}
