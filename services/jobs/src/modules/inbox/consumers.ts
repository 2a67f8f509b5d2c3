import type { AnyEvent, CloudEvent } from '@hireflow/contracts';
import type { Database, Sql } from '@hireflow/db';
import { handleOnce } from '@hireflow/idempotency';
import { type EventHandlers, type Logger, PermanentError } from '@hireflow/messaging';
import { setPhoto } from '../candidates/store.ts';
import type { StatusFeed } from '../postings/status-feed.ts';
import { applyMatched, setLogo, upsertMatch } from '../postings/store.ts';
import { createDeliveries, type DeliveryQueue } from '../webhooks/deliveries.ts';

/**
 * The jobs service's event handlers (its inbox): they update postings and
 * candidates and make webhook deliveries, so they sit beside those modules,
 * not in one of them (no folder imports another back). Each runs through the idempotency
 * wrapper keyed by the event id, in one transaction with its write: a
 * redelivered event changes nothing twice. The same transaction creates the
 * event's webhook deliveries (docs/webhooks.md); their tasks are added after
 * it commits (a task lost between the two is added again by the delivery sweep).
 */
export interface PostingHandlerOptions {
  /** Variant URLs must start with it (the media service's public base): a forged event cannot make pages show a foreign link. */
  mediaPublicUrl: string;
  /** Where the deliveries an event made are sent from; without it deliveries wait for the sweep. */
  deliveries?: DeliveryQueue | undefined;
}

export function postingHandlers(
  orm: Database,
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

  /** `work` and the event's webhook deliveries, once per event id; `deliver` says whether the work calls for them. */
  async function once<T>(
    event: AnyEvent,
    work: (em: Sql) => Promise<T>,
    deliver: (result: T) => boolean = () => true,
  ): Promise<T> {
    let created: string[] = [];
    const result = await handleOnce(orm, event, async (em) => {
      const done = await work(em);
      if (deliver(done)) created = await createDeliveries(em, event);
      return done;
    });
    if (created.length > 0) await options.deliveries?.add(created);
    return result;
  }

  return {
    'job.matched.v1': async (event: CloudEvent<'job.matched.v1'>) => {
      const { jobId: postingId, tenantId, matchCount, computedAt } = event.data;
      // posting.matched only when the read model moved: a late, older computation announces nothing.
      const changed = await once(
        event,
        (em) => applyMatched(em, { postingId, tenantId, matchCount, computedAt }),
        (moved) => moved,
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
    // Every processed upload is announced (upload.ready), owned or not.
    'media.processed.v1': async (event: CloudEvent<'media.processed.v1'>) => {
      const { uploadId, tenantId, ownerType, ownerId, uploadedAt, variants } = event.data;
      const foreign = variants.find((v) => !isVariantUrl(v.url, uploadId));
      if (foreign) {
        // Poison, not a retry: the event will never become acceptable (docs/security.md, API10).
        throw new PermanentError(
          `media.processed.v1 ${event.id} has a variant URL outside ${mediaBase}${uploadId}/`,
        );
      }
      const image = { uploadId, variants };
      await once(event, async (em) => {
        if (!ownerType || !ownerId) return false;
        return ownerType === 'job'
          ? setLogo(em, { tenantId, postingId: ownerId, logo: image, uploadedAt })
          : setPhoto(em, { tenantId, candidateId: ownerId, photo: image, uploadedAt });
      });
    },

    // Events jobs only turns into webhooks (upload.failed, posting.closed, candidate.registered).
    'media.failed.v1': async (event: CloudEvent<'media.failed.v1'>) => {
      await once(event, async () => true);
    },
    'job.closed.v1': async (event: CloudEvent<'job.closed.v1'>) => {
      await once(event, async () => true);
    },
    'candidate.registered.v1': async (event: CloudEvent<'candidate.registered.v1'>) => {
      await once(event, async () => true);
    },
  };
}
