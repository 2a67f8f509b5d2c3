// The service's BullMQ queue of computations. A job carries ids only; its id
// derives from the event that triggered it, so a redelivery of that event
// adds nothing, and a later event (another trigger) is never swallowed by an
// earlier one's completed job, which BullMQ keeps for a day.
import { idempotencyKey } from '@hireflow/idempotency';
import { createJobQueue, type JobQueue, type Logger, type RedisConnection } from '@hireflow/messaging';

export const MATCH_QUEUE = 'match';

export type MatchJob =
  | { kind: 'posting'; tenantId: string; jobId: string }
  | { kind: 'candidate'; tenantId: string; candidateId: string };

/** The intent key of the computation an event triggers. */
export function computationKey(kind: MatchJob['kind'], eventId: string): string {
  return idempotencyKey(`match-${kind}`, eventId);
}

export interface MatchQueue {
  readonly jobs: JobQueue<MatchJob>;
  /** Adds the computation triggered by `eventId` (a second add of it is a no-op). */
  add(job: MatchJob, eventId: string): Promise<void>;
  close(): Promise<void>;
}

export function createMatchQueue(options: {
  connection: RedisConnection;
  prefix: string;
  attempts: number;
  logger?: Logger;
}): MatchQueue {
  const jobs = createJobQueue<MatchJob>({
    name: MATCH_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    tracerName: '@hireflow/matching',
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    jobs,
    async add(job, eventId) {
      await jobs.add(job.kind, job, { intentKey: computationKey(job.kind, eventId) });
    },
    close: () => jobs.close(),
  };
}
