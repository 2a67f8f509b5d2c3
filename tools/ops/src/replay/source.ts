import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceName } from '@hireflow/contracts';
import type { EventLogPage } from '@hireflow/messaging';

export interface EventLogRequest {
  types: string[];
  since?: Date | undefined;
  until: Date;
  /** Position to continue after ('0': from the start). */
  after: string;
  limit: number;
}

/** Where a replay reads one producer's log. */
export interface EventLogSource {
  producer: ServiceName;
  read(request: EventLogRequest): Promise<EventLogPage>;
}

/** A producer's log could not be read (unreachable, refused, not served): the replay stops with this. */
export class EventLogUnavailableError extends Error {
  override readonly name = 'EventLogUnavailableError';
  readonly code = 'EVENT_LOG_UNAVAILABLE';
}

/**
 * A producer's log through its admin port (`GET /internal/events`), with the
 * admin token when one is set: the tool needs no database credentials, and
 * each service stays the only reader of its tables. Connection failures and
 * 5xx answers are tried three times before the replay stops.
 */
export function adminEventLog(options: {
  producer: ServiceName;
  /** The producer's admin listener, e.g. http://127.0.0.1:4001. */
  adminUrl: string;
  adminToken?: string | undefined;
  timeoutMs?: number;
}): EventLogSource {
  const base = options.adminUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = options.adminToken
    ? { authorization: `Bearer ${options.adminToken}` }
    : {};
  const where = `${options.producer}${options.producer.endsWith('s') ? "'" : "'s"} admin port at ${base}`;
  return {
    producer: options.producer,
    async read(request) {
      const query = new URLSearchParams({
        types: request.types.join(','),
        until: request.until.toISOString(),
        after: request.after,
        limit: String(request.limit),
      });
      if (request.since) query.set('since', request.since.toISOString());
      const url = `${base}/internal/events?${query}`;
      for (let attempt = 1; ; attempt++) {
        let res: Response;
        try {
          res = await fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
        } catch (error) {
          if (attempt < 3) {
            await sleep(500 * attempt);
            continue;
          }
          throw new EventLogUnavailableError(
            `cannot reach ${where} (${(error as Error).cause ?? (error as Error).message}): is ${options.producer} running? Set ${options.producer.toUpperCase()}_ADMIN_URL to its admin listener`,
          );
        }
        if (res.ok) return (await res.json()) as EventLogPage;
        const detail = (await res.text()).slice(0, 500);
        if (res.status >= 500 && attempt < 3) {
          await sleep(500 * attempt);
          continue;
        }
        if (res.status === 401) {
          throw new EventLogUnavailableError(
            `${where} refused the admin token: set ADMIN_TOKEN to the services' token`,
          );
        }
        if (res.status === 404) {
          throw new EventLogUnavailableError(
            `${where} serves no event log (GET /internal/events answered 404): is this ${options.producer}'s admin listener, and does this version of ${options.producer} keep one?`,
          );
        }
        throw new EventLogUnavailableError(
          `${where} answered ${res.status} to GET /internal/events: ${detail}`,
        );
      }
    },
  };
}
