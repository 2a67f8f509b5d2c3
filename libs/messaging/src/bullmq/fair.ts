// Fair queues (docs/fairness.md): within a BullMQ queue, tasks are taken
// round-robin by tenant, and the interactive lane before the bulk lane.
//
// The mechanism is start-time fair queuing on BullMQ's priorities. Every task
// gets a tag in its lane's virtual time: its tenant's tasks are numbered one
// after another from the lane's current position (the smallest tag still
// waiting), never from zero again while the tenant has work queued. A tenant
// that floods the lane with 5,000 tasks gets tags V…V+4999; a tenant that
// adds one task a moment later gets V: it is taken next. Two floods interleave
// one for one. BullMQ takes the lowest priority first (FIFO among equals), so
// the priority is the tag, offset by the lane: interactive priorities lie
// below every bulk priority. A tenant with nothing waiting in the lane (a
// newcomer) starts one below the lane's position: it wins the tie with the
// task at the head, and is the very next task taken.
//
// Such a task jumps a line: every worker may be busy with the work it jumped.
// The add then announces it (a Redis publish on `<queue>:fair:jump`), and a
// worker with headroom (worker.ts) takes one task more than its concurrency
// at once, instead of waiting for one of its running tasks to finish.
//
// State per queue and lane: one small hash (the epoch), and one hash per
// tenant (its epoch and last tag), expiring unused. Losing any of it (a Redis
// flush, a failover) costs order for a while, never a task: every task is an
// ordinary BullMQ job with a priority, retried, dead-lettered and recovered
// from stalls as any other.
import { createHash } from 'node:crypto';
import { signals } from '@hireflow/contracts/signals';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { untraced } from '../quiet.ts';

export type Lane = 'interactive' | 'bulk';
export const LANES: readonly Lane[] = ['interactive', 'bulk'];

/** Width of a lane's priority range: BullMQ allows priorities 1 … 2^21 − 1. */
export const LANE_SPAN = 2 ** 20;
/** A tag past this is clamped: a lane busy for a million tasks without a pause is FIFO until it idles. */
export const MAX_TAG = LANE_SPAN - 3;
/** The lowest tag: a newcomer's when the head of the lane has tag 0. */
const MIN_TAG = -1;
/** A tenant's last tag is forgotten after this long without an add (it is only an ordering hint). */
export const DEFAULT_TENANT_TAG_TTL_S = 24 * 3600;
/** The tenant of tasks added without one (a sweep's, an operator's). */
export const NO_TENANT = '-';

const laneBase = (lane: Lane) => (lane === 'interactive' ? 0 : LANE_SPAN);

/** The BullMQ priority of a tag in a lane. */
export function priorityOf(lane: Lane, tag: number): number {
  return laneBase(lane) + 1 - MIN_TAG + Math.min(Math.max(tag, MIN_TAG), MAX_TAG);
}

/** The channel an add announces a task that jumped a line on (worker.ts's headroom listens). */
export const jumpChannel = (queueKey: (type: string) => string) => queueKey('fair:jump');

/** The lane a BullMQ priority belongs to (0, no priority, counts as interactive). */
export function laneOfPriority(priority: number | undefined): Lane {
  return (priority ?? 0) > LANE_SPAN ? 'bulk' : 'interactive';
}

export interface FairTask {
  tenantId?: string | undefined;
  lane?: Lane | undefined;
}

// KEYS: [1] lane clock hash, [2] the queue's prioritized zset, [3…] one tenant hash per group.
// ARGV: [1] the priority of the lane's tag 0, [2] [3] the lane's score range in the zset (BullMQ's
// score is priority × 2^32 + a counter), [4] tenant ttl (s), [5…] count per group.
// Returns two numbers per group: its first tag (its tasks take first … first + count − 1), and
// 1 if it jumped a line (its tenant had nothing waiting in the lane, and other work of the queue
// waits), else 0.
const TAGS_SCRIPT = `
local zero = tonumber(ARGV[1])
local ttl = tonumber(ARGV[4])
local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
local top = tonumber(redis.call('HGET', KEYS[1], 'top') or '0')
local v = 0
local busy = false
local first = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[2], ARGV[3], 'WITHSCORES', 'LIMIT', 0, 1)
if first[2] then
  v = math.floor(tonumber(first[2]) / 4294967296) - zero
  busy = true
elseif top > 0 then
  -- Nothing of the lane waits: every tenant's tags are spent; start again from 0.
  epoch = epoch + 1
  top = 0
end
local waiting = busy or redis.call('ZCARD', KEYS[2]) > 0
local result = {}
for i = 5, #ARGV do
  local count = tonumber(ARGV[i])
  local tenant = KEYS[i - 2]
  local t = redis.call('HMGET', tenant, 'epoch', 'last')
  local last = 0
  if tonumber(t[1]) == epoch then last = tonumber(t[2]) or 0 end
  local start = math.max(v, last)
  -- A newcomer wins the tie with the head of a busy lane.
  if busy and last <= v then start = math.max(v - 1, ${MIN_TAG}) end
  redis.call('HSET', tenant, 'epoch', epoch, 'last', start + count)
  -- Where this tenant's waiting run of tags begins (tenantBacklogs counts from it).
  if last <= v then redis.call('HSET', tenant, 'first', start) end
  redis.call('EXPIRE', tenant, ttl)
  if start + count > top then top = start + count end
  result[#result + 1] = start
  result[#result + 1] = (last <= v and waiting) and 1 or 0
end
redis.call('HSET', KEYS[1], 'epoch', epoch, 'top', top)
return result
`;

const TAGS_SHA = createHash('sha1').update(TAGS_SCRIPT).digest('hex');

/**
 * Runs the tags script by its digest (EVALSHA: 40 bytes on the wire instead
 * of the script), loading it with EVAL when this Redis does not know it yet
 * (a first call, a restart, SCRIPT FLUSH).
 */
async function runTagsScript(redis: Redis, keys: string[], args: (string | number)[]): Promise<number[]> {
  try {
    return (await redis.evalsha(TAGS_SHA, keys.length, ...keys, ...args)) as number[];
  } catch (error) {
    if (!String((error as Error)?.message).includes('NOSCRIPT')) throw error;
    return (await redis.eval(TAGS_SCRIPT, keys.length, ...keys, ...args)) as number[];
  }
}

export interface FairnessOptions {
  /** Seconds a tenant's last tag is kept after its last add. */
  tenantTagTtlSeconds?: number;
  /** How often this process samples the tenants' backlogs for hireflow_tenant_backlog (default 15 s; 0: never). */
  backlogSampleMs?: number;
}

export const DEFAULT_BACKLOG_SAMPLE_MS = 15_000;

/** A task's place: its BullMQ priority, and whether it jumps a line (to announce once added). */
export interface Placement {
  priority: number;
  jumps: boolean;
}

/** Computes the priorities of tasks about to be added to one BullMQ queue. */
export interface Fairness {
  /** One placement per task, in order. */
  priorities(tasks: readonly FairTask[]): Promise<Placement[]>;
  /**
   * One task's placement. Calls made while a script call is under way are
   * sent together when it returns (one script per lane for all of them):
   * under load, the handlers that each add one task share the round trips;
   * alone, a call goes out at once.
   */
  priority(task: FairTask): Promise<Placement>;
  /**
   * Tells the queue's workers that `count` tasks just added jumped a line
   * (one publish, not awaited: a lost announcement costs a task its
   * headroom, never its place).
   */
  announce(count: number): void;
}

/** A tenant id as a key part (ids, not personal data; escaped so no id can reach into another key). */
const keyPart = (tenantId: string) => encodeURIComponent(tenantId).slice(0, 100);

/** `redis`: a connection of the queue's (the task queue's own, not a blocking one). */
export function createFairness(queue: Queue, redis: Redis, options: FairnessOptions = {}): Fairness {
  const ttl = options.tenantTagTtlSeconds ?? DEFAULT_TENANT_TAG_TTL_S;
  const laneKey = (lane: Lane) => queue.toKey(`fair:${lane}`);
  const tenantKey = (lane: Lane, tenantId: string) => queue.toKey(`fair:${lane}:t:${keyPart(tenantId)}`);
  const priorities = async (tasks: readonly FairTask[]): Promise<Placement[]> => {
    const result = new Array<Placement>(tasks.length);
    for (const lane of LANES) {
      // Groups of this lane by tenant, in order of first appearance.
      const groups = new Map<string, number[]>();
      tasks.forEach((task, index) => {
        if ((task.lane ?? 'interactive') !== lane) return;
        const tenant = task.tenantId || NO_TENANT;
        const group = groups.get(tenant) ?? [];
        group.push(index);
        groups.set(tenant, group);
      });
      if (groups.size === 0) continue;
      const tenants = [...groups.keys()];
      const placed = await runTagsScript(
        redis,
        [laneKey(lane), queue.keys.prioritized!, ...tenants.map((t) => tenantKey(lane, t))],
        [
          priorityOf(lane, 0),
          String((laneBase(lane) + 1) * 2 ** 32),
          String((laneBase(lane) + LANE_SPAN) * 2 ** 32 - 1),
          ttl,
          ...tenants.map((t) => groups.get(t)!.length),
        ],
      );
      tenants.forEach((tenant, g) => {
        const start = placed[2 * g]!;
        const jumped = placed[2 * g + 1] === 1;
        groups.get(tenant)!.forEach((index, i) => {
          // The group's first task is the one at the head of the line it jumped.
          result[index] = { priority: priorityOf(lane, start + i), jumps: jumped && i === 0 };
        });
      });
    }
    return result;
  };
  // Group commit of single adds: the calls waiting while one is under way.
  let waiting: { task: FairTask; resolve: (p: Placement) => void; reject: (e: unknown) => void }[] = [];
  let running = false;
  const flush = () => {
    const batch = waiting;
    waiting = [];
    running = true;
    priorities(batch.map((w) => w.task))
      .then(
        (result) => {
          for (const [i, w] of batch.entries()) w.resolve(result[i]!);
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      )
      .finally(() => {
        running = false;
        if (waiting.length > 0) flush();
      });
  };
  const channel = jumpChannel((type) => queue.toKey(type));
  return {
    priorities,
    priority: (task) =>
      new Promise<Placement>((resolve, reject) => {
        waiting.push({ task, resolve, reject });
        if (!running) flush();
      }),
    announce(count) {
      if (count > 0) redis.publish(channel, String(count)).catch(() => undefined);
    },
  };
}

/**
 * Each tenant's waiting tasks per lane, from the lane's state alone: a
 * tenant's tasks are numbered one after another, so those still waiting are
 * its last tag minus the lane's position. Tenants with none are left out.
 */
export async function tenantBacklogs(queue: Queue, redis: Redis): Promise<Record<Lane, number[]>> {
  const result: Record<Lane, number[]> = { interactive: [], bulk: [] };
  for (const lane of LANES) {
    const base = laneBase(lane);
    const [first, epochText] = await Promise.all([
      redis.zrangebyscore(
        queue.keys.prioritized!,
        String((base + 1) * 2 ** 32),
        String((base + LANE_SPAN) * 2 ** 32 - 1),
        'WITHSCORES',
        'LIMIT',
        0,
        1,
      ),
      redis.hget(queue.toKey(`fair:${lane}`), 'epoch'),
    ]);
    if (first.length < 2) continue; // nothing of the lane waits
    const position = Math.floor(Number(first[1]) / 2 ** 32) - priorityOf(lane, 0);
    const epoch = epochText ?? '0';
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', queue.toKey(`fair:${lane}:t:*`), 'COUNT', 500);
      cursor = next;
      const tenants = await Promise.all(keys.map((key) => redis.hmget(key, 'epoch', 'last', 'first')));
      for (const [tenantEpoch, last, first] of tenants) {
        if ((tenantEpoch ?? '0') !== epoch) continue;
        // A newcomer's run starts below the head (one below it): the others' runs start at their first tag.
        const waiting = Number(last) - Math.max(position, first == null ? position : Number(first));
        if (waiting > 0) result[lane].push(waiting);
      }
    } while (cursor !== '0');
  }
  return result;
}

/** Samples `tenantBacklogs` every `intervalMs` into the tenant-backlog signal (the process's metrics); returns stop. */
export function sampleTenantBacklogs(
  queue: Queue,
  redis: Redis,
  intervalMs: number,
  log: Logger,
): () => void {
  const timer = setInterval(() => {
    untraced(() => tenantBacklogs(queue, redis)).then(
      (backlogs) => {
        for (const lane of LANES)
          signals.tenantBacklog.publish({ queue: queue.name, lane, backlogs: backlogs[lane] });
      },
      (error: unknown) => log.debug({ err: error }, 'tenant backlog sample failed'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
