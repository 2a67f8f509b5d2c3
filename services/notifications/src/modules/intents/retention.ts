import type { TemplateName } from '../../db/notification-log.ts';

const DAY_MS = 24 * 3_600_000;

/**
 * The longest a posting lives (jobs' JOB_AUTO_CLOSE_AFTER_MS is at most 365
 * days) plus SQS's retention and a day: after that no job.matched.v1 of the
 * posting can arrive, not even a redelivery.
 */
export const POSTING_HORIZON_MS = (365 + 14 + 1) * DAY_MS;
/** SQS keeps a message at most 14 days: a redelivery comes within that, plus a day of margin. */
export const REDELIVERY_HORIZON_MS = (14 + 1) * DAY_MS;

export interface IntentHorizon {
  /** When the intent was recorded. */
  recordedAt: Date;
  /** For a posting's summary: when the posting was posted. */
  postedAt?: Date | undefined;
  /** How long the producers keep their events for a replay (NOTIFICATION_REPLAY_HORIZON_DAYS). */
  replayHorizonMs: number;
}

/**
 * How long an email intent's record must be kept: as long as an event that
 * asks for the same intent can still arrive, or a second email would go out.
 * - `job-matched:{postingId}` collapses every recomputation of the posting's
 *   matches: until the posting's last possible job.matched.v1 arrived.
 * - `welcome-email:{candidateId}` and `match-email:{postingId}:{candidateId}`
 *   come from one event each (a candidate registers once, a match is found
 *   once): until its last redelivery.
 * - Every intent: until a replay of the producers' event logs can no longer
 *   bring its event back.
 */
export function intentKeepUntil(template: TemplateName, horizon: IntentHorizon): Date {
  const recorded = horizon.recordedAt.getTime();
  const ownHorizon =
    template === 'job-matched' && horizon.postedAt
      ? horizon.postedAt.getTime() + POSTING_HORIZON_MS
      : recorded + (template === 'job-matched' ? POSTING_HORIZON_MS : REDELIVERY_HORIZON_MS);
  return new Date(Math.max(ownHorizon, recorded + horizon.replayHorizonMs));
}
