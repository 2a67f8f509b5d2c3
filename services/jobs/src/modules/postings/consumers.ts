import type { CloudEvent } from '@hireflow/contracts';
import type { MikroORM } from '@hireflow/db';
import { idempotent } from '@hireflow/idempotency';
import type { EventHandlers, Logger } from '@hireflow/messaging';
import { setPhoto } from '../candidates/store.ts';
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

    // A posting's logo or a candidate's photo, of the event's tenant only, and
    // only when newer than the image shown (the stores' conditional UPDATEs).
    'media.processed.v1': async (event: CloudEvent<'media.processed.v1'>) => {
      const { uploadId, tenantId, ownerType, ownerId, uploadedAt, variants } = event.data;
      if (!ownerType || !ownerId) return;
      const image = { uploadId, variants };
      await idempotent(orm, { key: event.id, transactional: true }, (em) =>
        ownerType === 'job'
          ? setLogo(em, { tenantId, jobId: ownerId, logo: image, uploadedAt })
          : setPhoto(em, { tenantId, candidateId: ownerId, photo: image, uploadedAt }),
      );
    },
  };
}
