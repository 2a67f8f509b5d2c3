// What Redis holds per waiting BullMQ task (issue 33): the figure the
// capacity model (libs/contracts/src/capacity) sizes ElastiCache with.
// 10,000 email tasks added as notifications adds them (createTaskQueue, an
// intent key each, 500 in flight) beside the bare baseline in the same
// run: the same payloads stored as plain Redis strings (SET key json). Each
// is measured as the difference of INFO memory's used_memory before and
// after, on a prefix of its own, deleted afterwards. The other ceilings of
// docs/capacity.md come from the benches named there.
import { randomBytes } from 'node:crypto';
import { createTaskQueue } from '@hireflow/messaging/tasks';
import { Redis } from 'ioredis';
import { type BenchReport, median, round } from './report.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TASKS = Number(process.env.BENCH_CAPACITY_TASKS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BULK = 500;

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

export default async function capacity(): Promise<BenchReport> {
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
    round: i + 1,
    'bare SET, bytes/key': round(b, 0),
    'waiting BullMQ task, bytes/task': round(bull[i]!, 0),
  }));
  const perTask = median(bull);
  return {
    description: `Redis memory per waiting task: ${TASKS} email tasks (createTaskQueue) beside the same payloads as plain strings, used_memory before/after, ${ROUNDS} rounds`,
    rows,
    ratios: { 'waiting task ÷ bare string (bytes)': perTask / median(bare) },
    checks: [],
  };
}
