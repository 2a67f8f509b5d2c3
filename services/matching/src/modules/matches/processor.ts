// The `match` BullMQ worker: one computation per task (service.ts).
import { type Logger, laneOfPriority, PermanentError, type RedisConnection } from '@hireflow/messaging';
import { createTaskWorker, type TaskWorker } from '@hireflow/messaging/tasks';
import { fromStoredTask, type StoredMatchTask } from './queue.ts';
import { MATCH_QUEUE } from './queue-name.ts';
import { type Computation, computeCandidate, computePosting, type MatchingContext } from './service.ts';

export interface MatchWorkerOptions {
  context: MatchingContext;
  /** Redis URL: the worker opens (and quits) its own blocking connection. */
  connection: RedisConnection;
  prefix: string;
  concurrency: number;
  /** Computations of one tenant running at once across all workers (0: no limit; docs/fairness.md). */
  tenantConcurrency?: number;
  /** Slots beyond `concurrency` for a computation that jumps a line (docs/fairness.md). */
  headroom?: number;
  log: Logger;
  /** Observer of every finished computation (tests wait on it). */
  onComputed?: (computation: Computation) => void;
}

export function startMatchWorker(options: MatchWorkerOptions): TaskWorker<StoredMatchTask, Computation> {
  const { context } = options;
  return createTaskWorker<StoredMatchTask, Computation>({
    name: MATCH_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    headroom: options.headroom ?? 0,
    tracerName: '@hireflow/matching',
    logger: options.log,
    ...(options.tenantConcurrency
      ? {
          tenantLimit: { max: options.tenantConcurrency, tenantOf: (task: StoredMatchTask) => task.tenantId },
        }
      : {}),
    processor: async (stored) => {
      const task = fromStoredTask(stored.data);
      // The task's lane (its priority's range) is the lane of what it announces.
      const lane = laneOfPriority(stored.opts.priority);
      let computation: Computation;
      if (task.kind === 'posting') {
        computation = await computePosting(context, task.tenantId, task.postingId, lane);
      } else if (task.kind === 'candidate') {
        computation = await computeCandidate(context, task.tenantId, task.candidateId, lane);
      } else throw new PermanentError(`unknown computation ${JSON.stringify(stored.data)}`);
      options.log.debug({ ...computation }, 'computation done');
      options.onComputed?.(computation);
      return computation;
    },
  });
}
