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
// do), each against a FIFO queue fed the same way.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createTaskQueue, createTaskWorker, type TaskQueue } from '@hireflow/messaging/tasks';
import { percentile } from '@hireflow/testing';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { type BenchReport, median } from './report.ts';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FLOOD = Number(process.env.BENCH_FAIRNESS_FLOOD ?? 2000);
const B_TASKS = 20;
const B_EVERY_MS = 25;
const TASK_MS = 2;
const CONCURRENCY = 8;
const ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 3);
/** Single adds in flight at once, as a consumer's handlers. */
const ADDERS = 16;

interface Work {
  tenant: string;
  n: number;
  addedAt: number;
}

interface Run {
  bLatencies: number[];
  /** B's wait in the queue alone: add → taken by a worker (BullMQ's processedOn). */
  bWaits: number[];
  drainMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Feed = 'bulk' | 'single';

async function run(fair: boolean, flood: number, feed: Feed = 'bulk'): Promise<Run> {
  const name = `bench-fair-${randomUUID().slice(0, 8)}`;
  const prefix = 'hfbench';
  const queue: TaskQueue<Work> = createTaskQueue<Work>({ name, prefix, connection: REDIS, fair });
  const bLatencies: number[] = [];
  const bWaits: number[] = [];
  let done = 0;
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
    processor: async (job) => {
      await sleep(TASK_MS);
      if (job.data.tenant === 'b') {
        bLatencies.push(Date.now() - job.data.addedAt);
        bWaits.push((job.processedOn ?? Date.now()) - job.data.addedAt);
      }
      done += 1;
      if (done === total) allDone();
    },
  });
  await worker.worker.waitUntilReady();
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
            { intentKey: `a:${n}`, tenantId: 'tenant-a' },
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
    await sleep(B_EVERY_MS);
  }
  await finished;
  const drainMs = Date.now() - started;
  await worker.close();
  await queue.queue.obliterate({ force: true });
  await queue.close();
  return { bLatencies, bWaits, drainMs };
}

const VARIANTS = {
  fifo: () => run(false, FLOOD),
  fair: () => run(true, FLOOD),
  idle: () => run(true, 0),
  fifoSingle: () => run(false, FLOOD, 'single'),
  fairSingle: () => run(true, FLOOD, 'single'),
} as const;
type Variant = keyof typeof VARIANTS;

export default async function fairness(): Promise<BenchReport> {
  const names = Object.keys(VARIANTS) as Variant[];
  await run(true, 200); // warm-up: code paths, connections, the script in Redis
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
  const p = (r: Run, q: number) => percentile(r.bLatencies, q);
  const each = (f: (round: Record<Variant, Run>) => number) => rounds.map(f);
  const tasks = (v: Variant) => (v === 'idle' ? 0 : FLOOD) + B_TASKS;
  const row = (label: string, v: Variant) => ({
    variant: label,
    'B p50 ms': median(each((r) => p(r[v], 50))),
    'B p99 ms': median(each((r) => p(r[v], 99))),
    // Where B's time goes: its wait to be taken (the ordering's part); the rest is its run,
    // which shares the worker and the machine with A's tasks under the flood.
    'B wait p50 ms': median(each((r) => percentile(r[v].bWaits, 50))),
    'drain ms': median(each((r) => r[v].drainMs)),
    'tasks/s': Math.round(tasks(v) / (median(each((r) => r[v].drainMs)) / 1000)),
  });
  const p50Ratios = each((r) => p(r.fair, 50) / Math.max(1, p(r.idle, 50)));
  const p99Ratios = each((r) => p(r.fair, 99) / Math.max(1, p(r.idle, 99)));
  const bulkThroughput = each((r) => r.fifo.drainMs / r.fair.drainMs);
  const singleThroughput = each((r) => r.fifoSingle.drainMs / r.fairSingle.drainMs);
  return {
    description:
      `One queue, ${CONCURRENCY} slots, ${TASK_MS} ms tasks: tenant A adds ${FLOOD} at once (addBulk of 500, or single ` +
      `adds ${ADDERS} at a time), then tenant B one every ${B_EVERY_MS} ms (${B_TASKS}). B's latency (add → done) under ` +
      `A's flood vs with A idle; drain time fair vs FIFO. Median of ${ROUNDS} interleaved rounds (load average ` +
      `${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}).`,
    rows: [
      row('FIFO (baseline), A flooding', 'fifo'),
      row('fair, A flooding', 'fair'),
      row('fair, A idle', 'idle'),
      row('FIFO (baseline), A single adds', 'fifoSingle'),
      row('fair, A single adds', 'fairSingle'),
    ],
    ratios: {
      'B p50 under flood ÷ A idle': median(p50Ratios),
      'B p99 under flood ÷ A idle': median(p99Ratios),
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
