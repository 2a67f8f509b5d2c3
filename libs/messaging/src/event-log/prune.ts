import type { SqlScope } from '../sql.ts';
import { deleteLoggedBefore } from './store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long a producer keeps what it published, for replays: a year. It must
 * stay at or below notifications' NOTIFICATION_REPLAY_HORIZON_DAYS (400), the
 * time an email intent is remembered, so that a replayed event never finds
 * its email forgotten and sends it again (docs/replay.md).
 */
export const DEFAULT_EVENT_LOG_RETENTION_DAYS = 365;
export const DEFAULT_EVENT_LOG_RETENTION_MS = DEFAULT_EVENT_LOG_RETENTION_DAYS * DAY_MS;

/**
 * Deletes log entries published more than `olderThanMs` ago, in slices of
 * `limit` so no single statement holds many locks. Returns how many went.
 */
export async function pruneEventLog(
  em: SqlScope,
  options: { olderThanMs?: number; limit?: number } = {},
): Promise<number> {
  const olderThanMs = options.olderThanMs ?? DEFAULT_EVENT_LOG_RETENTION_MS;
  const limit = options.limit ?? 5000;
  let total = 0;
  while (true) {
    const deleted = await deleteLoggedBefore(em, olderThanMs, limit);
    total += deleted;
    if (deleted < limit) return total;
  }
}
