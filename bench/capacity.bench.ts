// `pnpm bench capacity` (issue 33): the figures the capacity model
// (libs/contracts/src/capacity) reads that no other bench measures, each
// beside its bare baseline in the same run: parts redis and sse.
// `pnpm bench capacity --all` adds part ceilings: every other ceiling of
// docs/capacity.md, short versions of the benches that measure them, in
// the same run, and a table of them all (bench/capacity-ceilings.ts; run it
// alone). BENCH_CAPACITY_PARTS=redis,sse,ceilings picks parts.
//
// redis: what Redis holds per waiting BullMQ task, which sizes ElastiCache.
// 10,000 email tasks added as notifications adds them (createTaskQueue, an
// intent key each, 500 in flight) beside the bare baseline in the same
// run: the same payloads stored as plain Redis strings (SET key json). Each
// is measured as the difference of INFO memory's used_memory before and
// after, on a prefix of its own, deleted afterwards. The other ceilings of
// docs/capacity.md come from the benches named there.
import { randomBytes } from 'node:crypto';
import { createTaskQueue } from '@hireflow/messaging/tasks';
import { Redis } from 'ioredis';
import { everyCeiling } from './capacity-ceilings.ts';
import { sseStreamMemory } from './capacity-sse.ts';
import { type BenchReport, median, round } from './report.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TASKS = Number(process.env.BENCH_CAPACITY_TASKS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BULK = 500;
const SSE_STREAMS = (process.env.BENCH_CAPACITY_SSE_STREAMS ?? '1000,2000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const ALL = process.argv.includes('--all');
const PARTS = (process.env.BENCH_CAPACITY_PARTS ?? (ALL ? 'redis,sse,ceilings' : 'redis,sse')).split(',');
/** The ceilings part's sizes: `short` (default) or `smoke` (tiny: does it run end to end). */
const CEILINGS_SIZE = process.env.BENCH_CAPACITY_SIZE === 'smoke' ? 'smoke' : 'short';

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

const intentKey = (run: string, i: number) => `email:${run}:${String(i).padStart(6, '0')}:welcome`;

async function bareStrings(redis: Redis, run: string): Promise<number> {
  const prefix = `bench:cap:${run}:bare:`;
  const before = await usedMemory(redis);
  for (let start = 0; start < TASKS; start += BULK) {
    const pipeline = redis.pipeline();
    for (let i = start; i < Math.min(TASKS, start + BULK); i++) {
      pipeline.set(`${prefix}${i}`, JSON.stringify({ key: intentKey(run, i) }));
    }
    await pipeline.exec();
  }
  const bytes = (await usedMemory(redis)) - before;
  await dropPrefix(redis, prefix);
  return bytes / TASKS;
}

async function waitingTasks(redis: Redis, run: string): Promise<number> {
  const prefix = `bench:cap:${run}:bull`;
  const tasks = createTaskQueue<{ key: string }>({ name: 'email', connection: REDIS_URL, prefix });
  try {
    await tasks.queue.waitUntilReady();
    const before = await usedMemory(redis);
    for (let start = 0; start < TASKS; start += BULK) {
      const adds = [];
      for (let i = start; i < Math.min(TASKS, start + BULK); i++) {
        const key = intentKey(run, i);
        adds.push(tasks.add('welcome', { key }, { intentKey: key }));
      }
      await Promise.all(adds);
    }
    const waiting = await tasks.queue.getWaitingCount();
    if (waiting !== TASKS) throw new Error(`expected ${TASKS} waiting tasks, found ${waiting}`);
    return ((await usedMemory(redis)) - before) / TASKS;
  } finally {
    await tasks.queue.obliterate({ force: true });
    await tasks.close();
    await dropPrefix(redis, prefix);
  }
}

async function redisPerTask(): Promise<BenchReport> {
  const redis = new Redis(REDIS_URL);
  const bare: number[] = [];
  const bull: number[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const run = `${randomBytes(3).toString('hex')}${r}`;
      // Interleaved, the order alternating, so neither always meets a fresher allocator.
      if (r % 2 === 0) {
        bare.push(await bareStrings(redis, run));
        bull.push(await waitingTasks(redis, run));
      } else {
        bull.push(await waitingTasks(redis, run));
        bare.push(await bareStrings(redis, run));
      }
    }
  } finally {
    redis.disconnect();
  }
  const rows = bare.map((b, i) => ({
    part: 'redis',
    round: i + 1,
    'bare SET, bytes/key': round(b, 0),
    'waiting BullMQ task, bytes/task': round(bull[i]!, 0),
  }));
  const perTask = median(bull);
  return {
    description: `Redis memory per waiting task: ${TASKS} email tasks (createTaskQueue) beside the same payloads as plain strings, used_memory before/after, ${ROUNDS} rounds.`,
    rows,
    ratios: { 'waiting task ÷ bare string (bytes)': perTask / median(bare) },
    checks: [],
  };
}

async function ssePerStream(): Promise<BenchReport> {
  const measured = await sseStreamMemory(SSE_STREAMS);
  const rows = measured.map((m, i) => ({
    part: 'sse',
    process: m.process,
    streams: m.streams,
    'RSS before, MB': round(m.rssBefore / 1e6, 1),
    'RSS with the streams, MB': round(m.rssAfter / 1e6, 1),
    'bytes/stream': round(m.bytesPerStream, 0),
    // The step from the previous count: the fixed costs of the first streams cancel out.
    'bytes/stream since the previous count':
      i > 0 && measured[i - 1]!.process === m.process
        ? round((m.rssAfter - measured[i - 1]!.rssAfter) / (m.streams - measured[i - 1]!.streams), 0)
        : '',
  }));
  const at = (name: string, n: number) =>
    measured.find((m) => m.process.startsWith(name) && m.streams === n)!.bytesPerStream;
  return {
    description: `Memory per open SSE stream: the jobs API (GET /v1/jobs/{id}/events, a posting each) beside a bare node:http server holding as many text/event-stream responses, ${SSE_STREAMS.join(' then ')} streams from 127.0.0.1, VmRSS settled before and after.`,
    rows,
    ratios: Object.fromEntries(
      SSE_STREAMS.map((n) => [
        `jobs API ÷ bare server, bytes per stream at ${n}`,
        at('jobs', n) / at('bare', n),
      ]),
    ),
    checks: [],
  };
}

async function ceilings(): Promise<BenchReport> {
  const started = performance.now();
  const rows = await everyCeiling(CEILINGS_SIZE);
  return {
    description: `Every ceiling beside its bare baseline, short versions of the benches in one run (${CEILINGS_SIZE}, ${round((performance.now() - started) / 60_000, 1)} min).`,
    rows: rows.map((r) => ({
      part: r.part,
      ceiling: r.ceiling,
      baseline: r.baseline,
      ratio: round(r.ratio, 3),
    })),
    ratios: {},
    checks: [],
  };
}

const parts: Record<string, () => Promise<BenchReport>> = {
  redis: redisPerTask,
  sse: ssePerStream,
  ceilings,
};

export default async function capacity(): Promise<BenchReport> {
  const reports: BenchReport[] = [];
  for (const name of PARTS) {
    const part = parts[name];
    if (!part)
      throw new Error(`BENCH_CAPACITY_PARTS: no part ${name}; have ${Object.keys(parts).join(', ')}`);
    reports.push(await part());
  }
  return {
    description: reports.map((r) => r.description).join(' '),
    rows: reports.flatMap((r) => r.rows),
    ratios: Object.assign({}, ...reports.map((r) => r.ratios)),
    checks: reports.flatMap((r) => r.checks ?? []),
  };
}
