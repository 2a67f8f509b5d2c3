// Per-tenant limit on running tasks (docs/fairness.md): a worker that takes a
// task of a tenant already running `max` of this queue's tasks (across every
// worker process) puts it back for a moment, without spending an attempt, and
// takes the next. The running set is a sorted set of task ids scored by when
// their hold ends: a worker that dies holding one frees it when the hold
// expires, so a crash or a lost Redis write cannot wedge a tenant.
import type { Job, Processor } from 'bullmq';
import type { Redis } from 'ioredis';
import { DelayedError } from './classes.ts';

export interface TenantLimit<Data> {
  /** Tasks of one tenant running at once in this queue, across all workers. */
  max: number;
  /** The tenant of a task (undefined: not limited). */
  tenantOf(data: Data): string | undefined;
  /** How long a hold lasts without its task finishing (a dead worker's): default 10 min. */
  holdMs?: number;
  /** How long a task put back waits before it is taken again: default 250 ms. */
  backoffMs?: number;
}

// KEYS[1] the tenant's running set. ARGV: now, hold end, max, task id, ttl ms.
const ADMIT_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** The processor, admitting at most `limit.max` running tasks per tenant. */
export function limitTenants<Data, Result>(
  processor: Processor<Data, Result>,
  limit: TenantLimit<Data>,
  queue: { name: string; prefix?: string | undefined },
  redis: Redis,
): Processor<Data, Result> {
  const holdMs = limit.holdMs ?? 10 * 60_000;
  const backoffMs = limit.backoffMs ?? 250;
  const keyOf = (tenant: string) =>
    `${queue.prefix ?? 'bull'}:${queue.name}:fair:running:${encodeURIComponent(tenant).slice(0, 100)}`;
  return async (job: Job<Data, Result>, token?: string, signal?: AbortSignal) => {
    const tenant = limit.tenantOf(job.data);
    if (!tenant || !job.id) return processor(job, token, signal);
    const key = keyOf(tenant);
    const now = Date.now();
    const admitted = await redis.eval(ADMIT_SCRIPT, 1, key, now, now + holdMs, limit.max, job.id, holdMs);
    if (admitted !== 1) {
      // Back after a moment with its priority, no attempt spent (as a retry-later is).
      await job.moveToDelayed(now + backoffMs + Math.floor(Math.random() * backoffMs), token);
      throw new DelayedError();
    }
    try {
      return await processor(job, token, signal);
    } finally {
      await redis.zrem(key, job.id).catch(() => undefined);
    }
  };
}
