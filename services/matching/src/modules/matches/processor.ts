// The `match` BullMQ worker: one computation per job (service.ts).
import {
  createJobWorker,
  type JobWorker,
  type Logger,
  PermanentError,
  type RedisConnection,
} from '@hireflow/messaging';
import { MATCH_QUEUE, type MatchJob } from './queue.ts';
import { type Computation, computeCandidate, computePosting, type MatchingContext } from './service.ts';

export interface MatchWorkerOptions {
  context: MatchingContext;
  /** Redis URL: the worker opens (and quits) its own blocking connection. */
  connection: RedisConnection;
  prefix: string;
  concurrency: number;
  log: Logger;
  /** Observer of every finished computation (tests wait on it). */
  onComputed?: (computation: Computation) => void;
}

export function startMatchWorker(options: MatchWorkerOptions): JobWorker<MatchJob, Computation> {
  const { context } = options;
  return createJobWorker<MatchJob, Computation>({
    name: MATCH_QUEUE,
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    tracerName: '@hireflow/matching',
    logger: options.log,
    processor: async (job) => {
      const data = job.data;
      let computation: Computation;
      if (data.kind === 'posting') computation = await computePosting(context, data.tenantId, data.jobId);
      else if (data.kind === 'candidate') {
        computation = await computeCandidate(context, data.tenantId, data.candidateId);
      } else throw new PermanentError(`unknown computation ${JSON.stringify(data)}`);
      options.log.debug({ ...computation }, 'computation done');
      options.onComputed?.(computation);
      return computation;
    },
  });
}
