import type { CloudEvent } from '@hireflow/contracts';
import type { MikroORM } from '@hireflow/db';
import { type EventHandlers, handleOnce, type Logger, PermanentError } from '@hireflow/messaging';
import { setPhoto } from '../candidates/store.ts';
import type { StatusFeed } from './status-feed.ts';
import { applyMatched, setLogo, upsertMatch } from './store.ts';

/**
 * The jobs service's event handlers. Each runs through the idempotency
 * wrapper keyed by the event id, in one transaction with its write: a
 * redelivered event changes nothing twice.
 */
export interface PostingHandlerOptions {
  /** Variant URLs must start with it (the media service's public base): a forged event cannot make pages show a foreign link. */
  mediaPublicUrl: string;
}

export function postingHandlers(
  orm: MikroORM,
  feed: StatusFeed,
  log: Logger,
  options: PostingHandlerOptions,
): EventHandlers {
  const mediaBase = `${options.mediaPublicUrl.replace(/\/+$/, '')}/media/`;
  // What media serves: `${MEDIA_PUBLIC_URL}/media/{uploadId}/{name}.{ext}`, no
  // query, no dot segment: nothing else of the origin (`/v1/unsubscribe?…`).
  const isVariantUrl = (url: string, uploadId: string) =>
    url.startsWith(`${mediaBase}${uploadId}/`) &&
    /^[A-Za-z0-9_-]+\.[a-z0-9]+$/.test(url.slice(mediaBase.length + uploadId.length + 1));
  return {
    'job.matched.v1': async (event: CloudEvent<'job.matched.v1'>) => {
      const { jobId: postingId, tenantId, matchCount, computedAt } = event.data;
      const changed = await handleOnce(orm, event, (em) =>
        applyMatched(em, { postingId, tenantId, matchCount, computedAt }),
      );
      if (changed) await feed.notify({ postingId, status: 'matched', matchCount }, log);
    },

    'match.found.v1': async (event: CloudEvent<'match.found.v1'>) => {
      await handleOnce(orm, event, async (em) => {
        const { jobId: postingId, ...match } = event.data;
        await upsertMatch(em, { ...match, postingId, foundAt: event.time });
        return true;
      });
    },

    // A posting's logo or a candidate's photo, of the event's tenant only, and
    // only when newer than the image shown (the stores' conditional UPDATEs).
    'media.processed.v1': async (event: CloudEvent<'media.processed.v1'>) => {
      const { uploadId, tenantId, ownerType, ownerId, uploadedAt, variants } = event.data;
      if (!ownerType || !ownerId) return;
      const foreign = variants.find((v) => !isVariantUrl(v.url, uploadId));
      if (foreign) {
        // Poison, not a retry: the event will never become acceptable (docs/security.md, API10).
        throw new PermanentError(
          `media.processed.v1 ${event.id} has a variant URL outside ${mediaBase}${uploadId}/`,
        );
      }
      const image = { uploadId, variants };
      await handleOnce(orm, event, (em) =>
        ownerType === 'job'
          ? setLogo(em, { tenantId, postingId: ownerId, logo: image, uploadedAt })
          : setPhoto(em, { tenantId, candidateId: ownerId, photo: image, uploadedAt }),
      );
    },
  };
}
