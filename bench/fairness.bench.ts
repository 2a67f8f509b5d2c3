// Fair queues (docs/fairness.md), on one BullMQ queue against the machine's
// Redis: tenant B's latency while tenant A's flood waits, against B's latency
// with A idle; and the time to drain the same work through the fair queue
// against a plain FIFO queue (the baseline). Each task holds its worker for
// TASK_MS, as a short computation or send would.
import { randomUUID } from 'node:crypto';
import { createTaskQueue, createTaskWorker, type TaskQueue } from '@hireflow/messaging';
import { percentile } from '@hireflow/testing';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { BenchReport } from './report.ts';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FLOOD = Number(process.env.BENCH_FAIRNESS_FLOOD ?? 2000);
const B_TASKS = 20;
const B_EVERY_MS = 25;
const TASK_MS = 2;
const CONCURRENCY = 8;

interface Work {
  tenant: string;
  n: number;
  addedAt: number;
}

interface Run {
  bLatencies: number[];
  drainMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(fair: boolean, flood: number): Promise<Run> {
  const name = `bench-fair-${randomUUID().slice(0, 8)}`;
  const prefix = 'hfbench';
  const queue: TaskQueue<Work> = createTaskQueue<Work>({ name, prefix, connection: REDIS, fair });
  const bLatencies: number[] = [];
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
      if (job.data.tenant === 'b') bLatencies.push(Date.now() - job.data.addedAt);
      done += 1;
      if (done === total) allDone();
    },
  });
  await worker.worker.waitUntilReady();
  const started = Date.now();
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
  return { bLatencies, drainMs };
}

export default async function fairness(): Promise<BenchReport> {
  const fifo = await run(false, FLOOD);
  const fairFlood = await run(true, FLOOD);
  const fairIdle = await run(true, 0);
  const p = (r: Run, q: number) => percentile(r.bLatencies, q);
  const row = (variant: string, r: Run) => ({
    variant,
    'B p50 ms': p(r, 50),
    'B p99 ms': p(r, 99),
    'drain ms': r.drainMs,
    'tasks/s': Math.round(((r === fairIdle ? 0 : FLOOD) + B_TASKS) / (r.drainMs / 1000)),
  });
  return {
    description:
      `One queue, ${CONCURRENCY} slots, ${TASK_MS} ms tasks: tenant A adds ${FLOOD} at once, then tenant B one every ` +
      `${B_EVERY_MS} ms (${B_TASKS}). B's latency (add → done) under A's flood vs with A idle; drain time fair vs FIFO.`,
    rows: [
      row('FIFO (baseline), A flooding', fifo),
      row('fair, A flooding', fairFlood),
      row('fair, A idle', fairIdle),
    ],
    ratios: {
      'B p50 under flood ÷ A idle': p(fairFlood, 50) / Math.max(1, p(fairIdle, 50)),
      'B p99 under flood ÷ A idle': p(fairFlood, 99) / Math.max(1, p(fairIdle, 99)),
      'throughput fair ÷ FIFO': fifo.drainMs / fairFlood.drainMs,
    },
    checks: [
      {
        row: 'fairness: throughput fair ÷ FIFO',
        values: [fifo.drainMs / fairFlood.drainMs],
        kind: 'min',
        target: 0.9,
        unit: 'ratio',
      },
    ],
  };
}
