import { apiKeyEventSigned, type CloudEvent } from '@hireflow/contracts';
import type { Database } from '@hireflow/db';
import { handleOnce } from '@hireflow/idempotency';
import { type EventHandlers, PermanentError } from '@hireflow/messaging';
import { applyIssued, applyRevoked } from './store.ts';

export interface ApiKeyHandlerOptions {
  /**
   * APIKEY_EVENT_KEY: when set, an event without jobs' signature is poison
   * (events are not credentials: docs/security.md, API10). Unset is for
   * development only; production refuses to start without it.
   */
  eventKey?: string | undefined;
}

/**
 * media's inbox: the API-key projection. Each event is applied through the
 * idempotency wrapper keyed by its id, in one transaction with the write; the
 * writes are order-independent upserts, so an announcement of a key media
 * already knows (`pnpm cli api-key announce`) changes nothing.
 */
export function apiKeyHandlers(orm: Database, options: ApiKeyHandlerOptions = {}): EventHandlers {
  const { eventKey } = options;
  const checkSigned = (event: CloudEvent<'apikey.issued.v1'> | CloudEvent<'apikey.revoked.v1'>) => {
    if (eventKey && !apiKeyEventSigned(eventKey, event)) {
      throw new PermanentError(`${event.type} without a valid signature of jobs (APIKEY_EVENT_KEY): refused`);
    }
  };
  return {
    'apikey.issued.v1': async (event: CloudEvent<'apikey.issued.v1'>) => {
      checkSigned(event);
      await handleOnce(orm, event, async (em) => {
        await applyIssued(em, event.data);
        return true;
      });
    },
    'apikey.revoked.v1': async (event: CloudEvent<'apikey.revoked.v1'>) => {
      checkSigned(event);
      await handleOnce(orm, event, async (em) => {
        await applyRevoked(em, event.data);
        return true;
      });
    },
  };
}
