// The service's BullMQ queue of computations. A task carries ids only; its id
// derives from the event that triggered it, so a redelivery of that event
// adds nothing, and a later event (another trigger) is never swallowed by an
// earlier one's completed task, which BullMQ keeps for a day.
import { idempotencyKey } from '@hireflow/idempotency';
import type { Lane, Logger, RedisConnection } from '@hireflow/messaging';
import { createTaskQueue, type TaskQueue } from '@hireflow/messaging/tasks';
import { MATCH_QUEUE } from './queue-name.ts';

export type MatchTask =
  | { kind: 'posting'; tenantId: string; postingId: string }
  | { kind: 'candidate'; tenantId: string; candidateId: string };

/**
 * A task as Redis holds it: a posting's id under `jobId`, its name before the
 * code said "posting". Stored names outlive a deploy (workers of the old and
 * the new version read each other's tasks during a rolling deploy, dead
 * letters are kept 14 days), so the name stays and is mapped here
 * (docs/decisions.md, "Say posting").
 */
export type StoredMatchTask =
  | { kind: 'posting'; tenantId: string; jobId: string }
  | { kind: 'candidate'; tenantId: string; candidateId: string };

export function toStoredTask(task: MatchTask): StoredMatchTask {
  if (task.kind === 'candidate') return task;
  return { kind: 'posting', tenantId: task.tenantId, jobId: task.postingId };
}

export function fromStoredTask(stored: StoredMatchTask): MatchTask {
  if (stored.kind !== 'posting') return stored;
  return { kind: 'posting', tenantId: stored.tenantId, postingId: stored.jobId };
}

/** The intent key of the computation an event triggers. */
export function computationKey(kind: MatchTask['kind'], eventId: string): string {
  return idempotencyKey(`match-${kind}`, eventId);
}

export interface MatchQueue {
  readonly tasks: TaskQueue<StoredMatchTask>;
  /**
   * Adds the computation triggered by `eventId` (a second add of it is a no-op),
   * taken round-robin by tenant within its lane (default interactive; docs/fairness.md).
   */
  add(task: MatchTask, eventId: string, lane?: Lane): Promise<void>;
  close(): Promise<void>;
}

export function createMatchQueue(options: {
  connection: RedisConnection;
  prefix: string;
  attempts: number;
  logger?: Logger;
}): MatchQueue {
  const tasks = createTaskQueue<StoredMatchTask>({
    name: MATCH_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    attempts: options.attempts,
    tracerName: '@hireflow/matching',
    fair: true,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    tasks,
    async add(task, eventId, lane) {
      await tasks.add(task.kind, toStoredTask(task), {
        intentKey: computationKey(task.kind, eventId),
        tenantId: task.tenantId,
        lane,
      });
    },
    close: () => tasks.close(),
  };
}
