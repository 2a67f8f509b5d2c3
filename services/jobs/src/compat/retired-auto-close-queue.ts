// Compatibility drain: remove this file and its housekeeping task in
// worker.ts once every environment has run a jobs worker of this version for
// an hour (then `redis-cli --scan --pattern '<REDIS_PREFIX>:auto-close:*'`
// finds nothing).
//
// Until 2026-11-30 (commit 010f0f4) POST /v1/jobs also scheduled a delayed
// BullMQ task per posting on the `auto-close` queue, and every jobs worker
// ran a BullMQ worker to drain them. They carry no work: the posting's
// close_at is in job_posting, and the worker's sweep closes it within a
// minute of that time whatever became of its task. So the queue goes, with
// what is left in it, instead of a worker per process waiting up to a year
// (JOB_AUTO_CLOSE_AFTER_MS) to find postings closed already.
import { dropRetiredQueue, type RedisConnection } from '@hireflow/messaging';
import type { PeriodicTask } from '@hireflow/runtime';

export const RETIRED_AUTO_CLOSE_QUEUE = 'auto-close';

/** Hourly: the first run an hour after the worker starts, a no-op (one EXISTS) once the queue is gone. */
export function dropRetiredAutoCloseQueue(connection: RedisConnection, prefix: string): PeriodicTask {
  return {
    name: 'drop-retired-auto-close-queue',
    intervalMs: 3_600_000,
    run: async () => ({
      dropped: await dropRetiredQueue({ name: RETIRED_AUTO_CLOSE_QUEUE, connection, prefix }),
    }),
  };
}
