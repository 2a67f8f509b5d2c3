import type { CloudEvent } from '@hireflow/contracts';
import type { Database } from '@hireflow/db';
import { handleOnce } from '@hireflow/idempotency';
import type { EventHandlers } from '@hireflow/messaging';
import { type OwnerRef, recordOwner } from '../owners/store.ts';
import { announceAttached } from './service.ts';

/**
 * media's inbox: the owners projection. Only the ids are read from the
 * events (a candidate's name and email are never stored or logged by media).
 * Each event is applied once, keyed by its id, in one transaction with its
 * idempotency claim; the writes are idempotent anyway, so a replay of an
 * owner media knows changes nothing. The uploads it attaches that are ready
 * are announced again, now with their owner (`publicUrl`: MEDIA_PUBLIC_URL).
 */
export function ownerHandlers(orm: Database, publicUrl: string): EventHandlers {
  const apply = (event: { id: string }, owner: OwnerRef) =>
    handleOnce(orm, event, async (em) => {
      const attached = await recordOwner(em, owner);
      await announceAttached(em, attached, publicUrl);
      return attached.length;
    });
  return {
    'job.posted.v1': async (event: CloudEvent<'job.posted.v1'>) => {
      await apply(event, { tenantId: event.data.tenantId, ownerType: 'job', ownerId: event.data.jobId });
    },
    'candidate.registered.v1': async (event: CloudEvent<'candidate.registered.v1'>) => {
      await apply(event, {
        tenantId: event.data.tenantId,
        ownerType: 'candidate',
        ownerId: event.data.candidateId,
      });
    },
  };
}
