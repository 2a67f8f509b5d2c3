// Fair queues (docs/fairness.md), on one BullMQ queue against the machine's
// Redis: tenant B's latency while tenant A's flood waits, against B's latency
// with A idle; and the time to drain the same work through the fair queue
// against a plain FIFO queue (the baseline). Each task holds its worker for
// TASK_MS, as a short computation or send would.
//
// Rounds (BENCH_FAIRNESS_ROUNDS, default 3) interleave the variants, in an
// order that turns each round, after one unmeasured warm-up: one run's noise
// on the shared machine is larger than the difference measured. A's flood
// arrives two ways: in addBulk chunks of 500 (an import), and as single adds
// 16 at a time (a consumer's handlers, one task per event: what the services
// do), each against a FIFO queue fed the same way. A's flood is in B's lane
// (interactive: tenants take turns within it), or in the bulk lane, as an
// import is (docs/fairness.md, "Lanes").
//
// B's time is cut in two: its wait (add called → taken by a worker, BullMQ's
// processedOn), of which its add (call → added, as the producer sees it), and
// its run (taken → done: the processor's 2 ms on an event loop shared with
// A's tasks); beside them, the event loop's
// delay (p99) while the variant ran, and the most tasks the worker ran at
// once. The worker has the headroom of the services' workers (none by
// default since 2026-12-02); a variant with one slot of it (for a task that
// jumps a line, docs/fairness.md, "Headroom") shows what it is worth.
//
// What each task costs: this process's CPU time (producer and worker: they
// share it), the Redis commands it sent (counted on the client, pipelines
// and transactions command by command) and the Redis server's CPU time
// (INFO, the whole server: nothing else should use it meanwhile),
// each per task of the variant.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Lane } from '@hireflow/messaging';
import { createTaskQueue, createTaskWorker, type TaskQueue } from '@hireflow/messaging/tasks';
import { percentile } from '@hireflow/testing';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { Redis } from 'ioredis';
import { type BenchReport, median } from './report.ts';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FLOOD = Number(process.env.BENCH_FAIRNESS_FLOOD ?? 2000);
/** B's tasks (BENCH_FAIRNESS_B_TASKS): B's p99 is the nearest rank, so with 20 it is B's slowest task. */
const B_TASKS = Number(process.env.BENCH_FAIRNESS_B_TASKS ?? 20);
/** B's tasks come this far apart (BENCH_FAIRNESS_B_EVERY_MS): a burst at 25, one person at a time at 500. */
const B_EVERY_MS = Number(process.env.BENCH_FAIRNESS_B_EVERY_MS ?? 25);
/** How long each task holds its slot (BENCH_FAIRNESS_TASK_MS: 2, a short send; 20 or more, a computation). */
const TASK_MS = Number(process.env.BENCH_FAIRNESS_TASK_MS ?? 2);
/** The worker's slots (BENCH_FAIRNESS_CONCURRENCY). */
const CONCURRENCY = Number(process.env.BENCH_FAIRNESS_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 3);
/** Single adds in flight at once, as a consumer's handlers. */
const ADDERS = 16;
/** The worker's headroom (the services' default: none). */
const HEADROOM = 0;

/** Commands every ioredis connection of this process sent (BullMQ's and ours: one ioredis). */
let commandsSent = 0;
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  commandsSent += 1;
  return sendCommand.apply(this, args);
};

/** The Redis server's CPU time so far (ms, user + system). */
async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

interface Work {
  tenant: string;
  n: number;
  addedAt: number;
}

interface Run {
  bLatencies: number[];
  /** B's add: call → added (the ordering script and BullMQ's add). */
  bAdds: number[];
  /** B's wait: its add called → taken by a worker (BullMQ's processedOn; the add is part of it). */
  bWaits: number[];
  /** B's run: taken → done. */
  bRuns: number[];
  /** The event loop's delay while the variant ran, p99 (ms). */
  loopDelayP99: number;
  /** The most tasks the worker ran at once. */
  peakRunning: number;
  drainMs: number;
  /** A's tasks not yet done when B's last was added: 0 means part of B ran with A drained, not under its flood. */
  aLeftAtBLast: number;
  /** Per task: this process's CPU (ms), Redis commands sent, the Redis server's CPU (ms). */
  cpuMsPerTask: number;
  commandsPerTask: number;
  redisCpuMsPerTask: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Feed = 'bulk' | 'single';

interface Setup {
  fair: boolean;
  flood: number;
  feed?: Feed;
  /** The lane of A's flood (B's tasks are interactive). */
  aLane?: Lane;
  headroom?: number;
}

async function run({
  fair,
  flood,
  feed = 'bulk',
  aLane = 'interactive',
  headroom = HEADROOM,
}: Setup): Promise<Run> {
  const name = `bench-fair-${randomUUID().slice(0, 8)}`;
  const prefix = 'hfbench';
  const queue: TaskQueue<Work> = createTaskQueue<Work>({ name, prefix, connection: REDIS, fair });
  const bLatencies: number[] = [];
  const bAdds: number[] = [];
  const bWaits: number[] = [];
  const bRuns: number[] = [];
  const addedAt = new Map<number, number>();
  let running = 0;
  let peakRunning = 0;
  let done = 0;
  let aDone = 0;
  const total = flood + B_TASKS;
  let allDone: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const worker = createTaskWorker<Work>({
    name,
    prefix,
    connection: REDIS,
    concurrency: CONCURRENCY,
    headroom: fair ? headroom : 0,
    processor: async (job) => {
      running += 1;
      peakRunning = Math.max(peakRunning, running);
      await sleep(TASK_MS);
      running -= 1;
      if (job.data.tenant === 'b') {
        const now = Date.now();
        const taken = job.processedOn ?? now;
        const added = addedAt.get(job.data.n) ?? taken;
        bLatencies.push(now - job.data.addedAt);
        bAdds.push(added - job.data.addedAt);
        bWaits.push(taken - job.data.addedAt);
        bRuns.push(now - taken);
      }
      if (job.data.tenant === 'a') aDone += 1;
      done += 1;
      if (done === total) allDone();
    },
  });
  await worker.worker.waitUntilReady();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const redisCpu0 = await redisCpuMs(probe);
  const cpu0 = process.cpuUsage();
  const commands0 = commandsSent;
  const started = Date.now();
  if (feed === 'bulk') {
    for (let i = 0; i < flood; i += 500) {
      await queue.addBulk(
        Array.from({ length: Math.min(500, flood - i) }, (_, k) => ({
          name: 'work',
          data: { tenant: 'a', n: i + k, addedAt: Date.now() },
          intentKey: `a:${i + k}`,
          context: ROOT_CONTEXT,
          tenantId: 'tenant-a',
          lane: aLane,
        })),
      );
    }
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: ADDERS }, async () => {
        while (next < flood) {
          const n = next++;
          await queue.add(
            'work',
            { tenant: 'a', n, addedAt: Date.now() },
            { intentKey: `a:${n}`, tenantId: 'tenant-a', lane: aLane },
          );
        }
      }),
    );
  }
  for (let n = 0; n < B_TASKS; n++) {
    await queue.add(
      'work',
      { tenant: 'b', n, addedAt: Date.now() },
      { intentKey: `b:${n}`, tenantId: 'tenant-b' },
    );
    addedAt.set(n, Date.now());
    if (n < B_TASKS - 1) await sleep(B_EVERY_MS);
  }
  const aLeftAtBLast = flood - aDone;
  await finished;
  const drainMs = Date.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const commands = commandsSent - commands0;
  const redisCpu = (await redisCpuMs(probe)) - redisCpu0;
  loop.disable();
  await worker.close();
  await queue.queue.obliterate({ force: true });
  await queue.close();
  return {
    bLatencies,
    bAdds,
    bWaits,
    bRuns,
    loopDelayP99: loop.percentile(99) / 1e6,
    peakRunning,
    drainMs,
    aLeftAtBLast,
    cpuMsPerTask: (cpu.user + cpu.system) / 1000 / total,
    commandsPerTask: commands / total,
    redisCpuMsPerTask: redisCpu / total,
  };
}

const VARIANTS = {
  fifo: () => run({ fair: false, flood: FLOOD }),
  fair: () => run({ fair: true, flood: FLOOD }),
  fairHeadroom: () => run({ fair: true, flood: FLOOD, headroom: 1 }),
  fairBulkLane: () => run({ fair: true, flood: FLOOD, aLane: 'bulk' }),
  idle: () => run({ fair: true, flood: 0 }),
  fifoSingle: () => run({ fair: false, flood: FLOOD, feed: 'single' }),
  fairSingle: () => run({ fair: true, flood: FLOOD, feed: 'single' }),
} as const;
type Variant = keyof typeof VARIANTS;

/** A connection of the bench's own, for INFO. */
let probe: Redis;

export default async function fairness(): Promise<BenchReport> {
  probe = new Redis(REDIS);
  const names = Object.keys(VARIANTS) as Variant[];
  await run({ fair: true, flood: 200 }); // warm-up: code paths, connections, the script in Redis
  const rounds: Record<Variant, Run>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round = {} as Record<Variant, Run>;
    // Each round starts with another variant: none always runs first, or last.
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length]!;
      round[name] = await VARIANTS[name]();
    }
    rounds.push(round);
  }
  await probe.quit();
  const round2 = (x: number) => Math.round(x * 100) / 100;
  const p = (r: Run, q: number) => percentile(r.bLatencies, q);
  const each = (f: (round: Record<Variant, Run>) => number) => rounds.map(f);
  const tasks = (v: Variant) => (v === 'idle' ? 0 : FLOOD) + B_TASKS;
  const row = (label: string, v: Variant) => ({
    variant: label,
    'B p50 ms': median(each((r) => p(r[v], 50))),
    'B p99 ms': median(each((r) => p(r[v], 99))),
    // Where B's time goes: its add, its wait to be taken (the ordering's and the slots' part),
    // its run (which shares the worker's event loop and the machine with A's tasks under the flood).
    'B add p50': median(each((r) => percentile(r[v].bAdds, 50))),
    'B wait p50': median(each((r) => percentile(r[v].bWaits, 50))),
    'B run p50': median(each((r) => percentile(r[v].bRuns, 50))),
    'loop delay p99': Math.round(median(each((r) => r[v].loopDelayP99))),
    'peak running': Math.max(...each((r) => r[v].peakRunning)),
    'drain ms': median(each((r) => r[v].drainMs)),
    // The fewest of A's tasks still to do at B's last add, over the rounds (0: B outlasted the flood).
    "A left at B's last": Math.min(...each((r) => r[v].aLeftAtBLast)),
    'tasks/s': Math.round(tasks(v) / (median(each((r) => r[v].drainMs)) / 1000)),
    'CPU ms/task': round2(median(each((r) => r[v].cpuMsPerTask))),
    'Redis cmds/task': round2(median(each((r) => r[v].commandsPerTask))),
    'Redis CPU ms/task': round2(median(each((r) => r[v].redisCpuMsPerTask))),
  });
  const ratio = (v: Variant, q: number) => each((r) => p(r[v], q) / Math.max(1, p(r.idle, q)));
  const p50Ratios = ratio('fair', 50);
  const p99Ratios = ratio('fair', 99);
  const bulkThroughput = each((r) => r.fifo.drainMs / r.fair.drainMs);
  const singleThroughput = each((r) => r.fifoSingle.drainMs / r.fairSingle.drainMs);
  // B's ratios measure B under A's flood only if A still had work when B's last task was added.
  const flooding: Variant[] = ['fifo', 'fair', 'fairHeadroom', 'fairBulkLane', 'fifoSingle', 'fairSingle'];
  const outlasted = flooding.filter((v) => each((r) => r[v].aLeftAtBLast).some((left) => left === 0));
  return {
    description:
      `One queue, ${CONCURRENCY} slots, ${TASK_MS} ms tasks: tenant A adds ${FLOOD} at once (addBulk of 500, or single ` +
      `adds ${ADDERS} at a time), then tenant B one every ${B_EVERY_MS} ms (${B_TASKS}). B's latency (add → done) under ` +
      `A's flood vs with A idle; drain time fair vs FIFO. Median of ${ROUNDS} interleaved rounds (load average ` +
      `${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}).` +
      (outlasted.length > 0
        ? ` WARNING: A's flood was done before B's last task in ${outlasted.join(', ')}: B's ratios there` +
          ` understate the flood; raise BENCH_FAIRNESS_FLOOD.`
        : ''),
    rows: [
      row('FIFO (baseline), A flooding', 'fifo'),
      row('fair, A flooding', 'fair'),
      row('fair with one slot of headroom, A flooding', 'fairHeadroom'),
      row('fair, A flooding the bulk lane', 'fairBulkLane'),
      row('fair, A idle', 'idle'),
      row('FIFO (baseline), A single adds', 'fifoSingle'),
      row('fair, A single adds', 'fairSingle'),
    ],
    ratios: {
      'B p50 under flood ÷ A idle': median(p50Ratios),
      'B p99 under flood ÷ A idle': median(p99Ratios),
      'B p50 under flood ÷ A idle, with headroom': median(ratio('fairHeadroom', 50)),
      'B p99 under flood ÷ A idle, with headroom': median(ratio('fairHeadroom', 99)),
      // Paired in each round: the two variants differ only by the headroom.
      'B p50 with headroom ÷ without': median(
        each((r) => p(r.fairHeadroom, 50) / Math.max(1, p(r.fair, 50))),
      ),
      'B wait p50 with headroom ÷ without': median(
        each((r) => percentile(r.fairHeadroom.bWaits, 50) / Math.max(1, percentile(r.fair.bWaits, 50))),
      ),
      'B p50 under a bulk-lane flood ÷ A idle': median(ratio('fairBulkLane', 50)),
      'B p99 under a bulk-lane flood ÷ A idle': median(ratio('fairBulkLane', 99)),
      'throughput fair ÷ FIFO (addBulk)': median(bulkThroughput),
      'throughput fair ÷ FIFO (single adds)': median(singleThroughput),
    },
    checks: [
      {
        row: 'fairness: B p50 under flood ÷ idle',
        values: p50Ratios,
        kind: 'max',
        target: 1.5,
        unit: 'ratio',
      },
      { row: 'fairness: B p99 under flood ÷ idle', values: p99Ratios, kind: 'max', target: 3, unit: 'ratio' },
      {
        row: 'fairness: B p50 under a bulk-lane flood ÷ idle',
        values: ratio('fairBulkLane', 50),
        kind: 'max',
        target: 1.5,
        unit: 'ratio',
      },
      {
        row: 'fairness: B p99 under a bulk-lane flood ÷ idle',
        values: ratio('fairBulkLane', 99),
        kind: 'max',
        target: 3,
        unit: 'ratio',
      },
      {
        row: 'fairness: throughput fair ÷ FIFO (addBulk)',
        values: bulkThroughput,
        kind: 'min',
        target: 0.9,
        unit: 'ratio',
      },
      {
        row: 'fairness: throughput fair ÷ FIFO (single adds)',
        values: singleThroughput,
        kind: 'min',
        target: 0.9,
        unit: 'ratio',
      },
    ],
  };
}
