import type { CloudEvent } from '@hireflow/contracts';
import type { MikroORM } from '@hireflow/db';
import { type EventHandlers, handleOnce } from '@hireflow/messaging';
import { applyIssued, applyRevoked } from './store.ts';

/**
 * media's inbox: the API-key projection. Each event is applied through the
 * idempotency wrapper keyed by its id, in one transaction with the write; the
 * writes are order-independent upserts, so an announcement of a key media
 * already knows (`pnpm cli api-key announce`) changes nothing.
 */
export function apiKeyHandlers(orm: MikroORM): EventHandlers {
  return {
    'apikey.issued.v1': async (event: CloudEvent<'apikey.issued.v1'>) => {
      await handleOnce(orm, event, async (em) => {
        await applyIssued(em, event.data);
        return true;
      });
    },
    'apikey.revoked.v1': async (event: CloudEvent<'apikey.revoked.v1'>) => {
      await handleOnce(orm, event, async (em) => {
        await applyRevoked(em, event.data);
        return true;
      });
    },
  };
}
