// Fair queues against a real Redis: a flood of one tenant does not delay
// another's task, the interactive lane goes before the bulk lane, and every
// guarantee of a task (retries, dead letters) holds with priorities.
import { uniqueName, waitFor } from '@hireflow/testing';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { LANE_SPAN, type Lane, PermanentError, priorityOf } from '../src/index.ts';
import { type BulkTask, createTaskQueue, createTaskWorker, type TaskQueue } from '../src/tasks.ts';
import { REDIS } from './task-queues.ts';

interface Work {
  tenant: string;
  n: number;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function setup(label: string, fair = true, attempts?: number) {
  const name = uniqueName(label);
  const prefix = `hftest-${uniqueName('fair')}`;
  const queue = createTaskQueue<Work>({
    name,
    prefix,
    connection: REDIS,
    fair,
    ...(attempts ? { attempts, backoff: { base: 10, cap: 20 } } : {}),
  });
  cleanups.push(async () => {
    await queue.queue.obliterate({ force: true });
    await queue.close();
  });
  return { name, prefix, queue };
}

/** Runs the queue's tasks one at a time; resolves with the order they were taken in once `total` are done. */
async function drain(
  name: string,
  prefix: string,
  total: number,
  processor: (work: Work) => Promise<void> = async () => undefined,
) {
  const taken: Work[] = [];
  const worker = createTaskWorker<Work>({
    name,
    prefix,
    connection: REDIS,
    concurrency: 1,
    processor: async (job) => {
      taken.push(job.data);
      await processor(job.data);
    },
  });
  cleanups.push(() => worker.close());
  await waitFor(async () => (await worker.worker.isRunning()) && taken.length >= total, {
    timeoutMs: 60_000,
    message: `${total} tasks taken`,
  });
  return taken;
}

const flood = (tenant: string, count: number, lane: Lane = 'interactive', from = 0): BulkTask<Work>[] =>
  Array.from({ length: count }, (_, i) => ({
    name: 'work',
    data: { tenant, n: from + i },
    intentKey: `work:${tenant}:${from + i}`,
    context: ROOT_CONTEXT,
    tenantId: tenant,
    lane,
  }));

async function addFlood(queue: TaskQueue<Work>, tasks: BulkTask<Work>[]) {
  // In chunks, as a flood arrives: many adds, not one.
  for (let i = 0; i < tasks.length; i += 100) await queue.addBulk(tasks.slice(i, i + 100));
}

const position = (taken: Work[], tenant: string) => taken.findIndex((w) => w.tenant === tenant);

describe('fair queues', () => {
  it("takes tenant B's one task first, not after tenant A's flood (plain FIFO: after it)", async () => {
    const fair = setup('fair-flood');
    await addFlood(fair.queue, flood('tenant-a', 500));
    await fair.queue.add(
      'work',
      { tenant: 'tenant-b', n: 0 },
      { intentKey: 'work:b:0', tenantId: 'tenant-b' },
    );
    const taken = await drain(fair.name, fair.prefix, 501);
    // A newcomer wins the tie with the head of the lane: it is the very next task.
    expect(position(taken, 'tenant-b')).toBe(0);
    // A's own tasks keep their order.
    const ofA = taken.filter((w) => w.tenant === 'tenant-a').map((w) => w.n);
    expect(ofA).toEqual([...ofA].sort((x, y) => x - y));

    const plain = setup('plain-flood', false);
    await addFlood(plain.queue, flood('tenant-a', 500));
    await plain.queue.add('work', { tenant: 'tenant-b', n: 0 }, { intentKey: 'work:b:0' });
    expect(position(await drain(plain.name, plain.prefix, 501), 'tenant-b')).toBe(500);
  });

  it('orders single adds made at once (a consumer’s handlers) as one flood: B still among the first few', async () => {
    const { name, prefix, queue } = setup('fair-single');
    // 300 of A's adds in flight together share the ordering script's round trips (group commit);
    // B's one add, made among them, is still taken within the first few.
    await Promise.all([
      ...Array.from({ length: 300 }, (_, n) =>
        queue.add('work', { tenant: 'tenant-a', n }, { intentKey: `work:a:${n}`, tenantId: 'tenant-a' }),
      ),
      queue.add('work', { tenant: 'tenant-b', n: 0 }, { intentKey: 'work:b:0', tenantId: 'tenant-b' }),
    ]);
    const taken = await drain(name, prefix, 301);
    expect(position(taken, 'tenant-b')).toBeLessThanOrEqual(2);
    // A's own tasks keep the order they were added in.
    const ofA = taken.filter((w) => w.tenant === 'tenant-a').map((w) => w.n);
    expect(ofA).toEqual([...ofA].sort((x, y) => x - y));
  });

  it('joins a tenant arriving mid-flood at the current position: two floods interleave one for one', async () => {
    const { name, prefix, queue } = setup('fair-two');
    await addFlood(queue, flood('tenant-a', 200));
    // 50 of A's are taken (removed, as a worker would), then C floods too.
    for (const job of await queue.queue.getPrioritized(0, 49)) await job.remove();
    expect(await queue.queue.getPrioritizedCount()).toBe(150);
    const left = 150;
    await addFlood(queue, flood('tenant-c', 100));
    const taken = await drain(name, prefix, left + 100);
    // C is not parked behind A's remaining tasks, nor does it jump all of them: they alternate.
    const window = taken.slice(0, 40).map((w) => w.tenant);
    expect(window.filter((t) => t === 'tenant-c').length).toBeGreaterThanOrEqual(18);
    expect(window.filter((t) => t === 'tenant-a').length).toBeGreaterThanOrEqual(18);
  });

  it('takes the interactive lane before the bulk lane, and by tenant within each', async () => {
    const { name, prefix, queue } = setup('fair-lanes');
    await addFlood(queue, flood('tenant-a', 200, 'bulk'));
    await queue.add(
      'work',
      { tenant: 'tenant-b', n: 0 },
      { intentKey: 'bulk-b', tenantId: 'tenant-b', lane: 'bulk' },
    );
    await addFlood(queue, flood('tenant-a', 20, 'interactive', 1000));
    await queue.add(
      'work',
      { tenant: 'tenant-b', n: 1 },
      { intentKey: 'interactive-b', tenantId: 'tenant-b' },
    );
    const taken = await drain(name, prefix, 222);
    const lanes = taken.map((w) => (w.n >= 1000 || (w.tenant === 'tenant-b' && w.n === 1) ? 'i' : 'b'));
    expect(lanes.slice(0, 21).every((l) => l === 'i')).toBe(true);
    expect(taken.findIndex((w) => w.tenant === 'tenant-b' && w.n === 1)).toBeLessThanOrEqual(2);
    // B's bulk task is the first or second of the bulk lane.
    expect(taken.findIndex((w) => w.tenant === 'tenant-b' && w.n === 0)).toBeLessThanOrEqual(23);
    const priorities = (await queue.queue.getCompleted(0, 300)).map((job) => job.opts.priority!);
    expect(priorities.every((p) => p >= 1 && p < 2 * LANE_SPAN)).toBe(true);
  });

  it('keeps retries and dead letters: a failing task is retried with its priority, a permanent one dead-lettered', async () => {
    const { name, prefix, queue } = setup('fair-retry', true, 3);
    await queue.add('work', { tenant: 'tenant-a', n: 1 }, { intentKey: 'flaky', tenantId: 'tenant-a' });
    await queue.add('work', { tenant: 'tenant-a', n: 2 }, { intentKey: 'poison', tenantId: 'tenant-a' });
    let flaky = 0;
    await drain(name, prefix, 3, async (work) => {
      if (work.n === 2) throw new PermanentError('bad input');
      flaky += 1;
      if (flaky === 1) throw new Error('smtp down');
    });
    await waitFor(
      async () => (await queue.queue.getCompletedCount()) === 1 && (await queue.deadLetterCount()) === 1,
    );
    const [done] = await queue.queue.getCompleted();
    expect(done!.attemptsMade).toBe(2); // one failure, one success
    expect(done!.opts.priority).toBeGreaterThan(0);
  });

  it('loses nothing when its own state is lost (a Redis flush of the fair keys): tasks still run, in some order', async () => {
    const { name, prefix, queue } = setup('fair-lost');
    await addFlood(queue, flood('tenant-a', 50));
    const redis = new Redis(REDIS);
    cleanups.push(() => redis.quit());
    const keys = await redis.keys(`${prefix}:${name}:fair:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    await addFlood(queue, flood('tenant-b', 5));
    const taken = await drain(name, prefix, 55);
    expect(new Set(taken.map((w) => `${w.tenant}:${w.n}`)).size).toBe(55);
    // The tenant keys expire when unused.
    const ttl = await redis.ttl((await redis.keys(`${prefix}:${name}:fair:interactive:t:*`))[0]!);
    expect(ttl).toBeGreaterThan(0);
  });

  it('starts again from the front once the lane is idle (no tag grows for ever)', async () => {
    const { name, prefix, queue } = setup('fair-idle');
    await addFlood(queue, flood('tenant-a', 30));
    await drain(name, prefix, 30);
    await cleanups.pop()!();
    await queue.add('work', { tenant: 'tenant-a', n: 99 }, { intentKey: 'again', tenantId: 'tenant-a' });
    const job = await queue.queue.getJob((await queue.queue.getPrioritized())[0]!.id!);
    expect(job!.opts.priority).toBe(priorityOf('interactive', 0));
  });

  it("limits a tenant's running tasks across workers, without spending attempts, and lets other tenants through", async () => {
    const { name, prefix, queue } = setup('fair-limit', true, 1);
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    let done = 0;
    const startWorker = () => {
      const worker = createTaskWorker<Work>({
        name,
        prefix,
        connection: REDIS,
        concurrency: 4,
        tenantLimit: { max: 2, tenantOf: (work) => work.tenant, backoffMs: 20 },
        processor: async (job) => {
          const tenant = job.data.tenant;
          running.set(tenant, (running.get(tenant) ?? 0) + 1);
          peak.set(tenant, Math.max(peak.get(tenant) ?? 0, running.get(tenant)!));
          await new Promise((resolve) => setTimeout(resolve, 30));
          running.set(tenant, running.get(tenant)! - 1);
          done += 1;
        },
      });
      cleanups.push(() => worker.close());
    };
    await addFlood(queue, flood('tenant-a', 30));
    await addFlood(queue, flood('tenant-b', 6));
    startWorker();
    startWorker();
    await waitFor(async () => done === 36 && (await queue.queue.getCompletedCount()) === 36, {
      timeoutMs: 60_000,
      message: '36 tasks completed',
    });
    // Eight slots over two workers; at most two of A's ever ran at once, and so of B's.
    expect(peak.get('tenant-a')).toBe(2);
    expect(peak.get('tenant-b')).toBeLessThanOrEqual(2);
    // attempts: 1, yet every task completed: being put back spent none.
    expect(await queue.deadLetterCount()).toBe(0);
  });

  describe('headroom: a task that jumps a line is taken at once, not when a slot frees', () => {
    /** A worker whose tasks of tenant A hold their slot until `release`; B's run at once. */
    function gatedWorker(name: string, prefix: string, headroom: number) {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const started: Work[] = [];
      const completed: Work[] = [];
      let running = 0;
      let peak = 0;
      const worker = createTaskWorker<Work>({
        name,
        prefix,
        connection: REDIS,
        concurrency: 2,
        headroom,
        processor: async (job) => {
          started.push(job.data);
          running += 1;
          peak = Math.max(peak, running);
          if (job.data.tenant === 'tenant-a') await gate;
          running -= 1;
          completed.push(job.data);
        },
      });
      cleanups.push(async () => {
        release();
        await worker.close();
      });
      return { worker, started, completed, release, peak: () => peak };
    }

    /** The announcements on the queue's jump channel (fair.ts). */
    async function listen(prefix: string, name: string) {
      const subscriber = new Redis(REDIS);
      cleanups.push(() => subscriber.quit());
      const heard: string[] = [];
      subscriber.on('message', (_channel: string, message: string) => heard.push(message));
      await subscriber.subscribe(`${prefix}:${name}:fair:jump`);
      return heard;
    }

    for (const lane of ['interactive', 'bulk'] as const) {
      it(`starts B's task while both slots run A's ${lane} flood, then shrinks back to its concurrency`, async () => {
        const { name, prefix, queue } = setup(`fair-headroom-${lane}`);
        const heard = await listen(prefix, name);
        const { started, completed, peak } = gatedWorker(name, prefix, 1);
        await addFlood(queue, flood('tenant-a', 10, lane));
        await waitFor(() => started.length === 2, { message: "two of A's tasks running" });
        // A's flood jumped nothing: it announced nothing, and the worker kept to its two slots.
        expect(heard).toEqual([]);
        await queue.add('work', { tenant: 'tenant-b', n: 0 }, { intentKey: 'b:0', tenantId: 'tenant-b' });
        // Both slots still hold A's tasks (gated): B runs in the headroom.
        await waitFor(() => completed.some((w) => w.tenant === 'tenant-b'), {
          timeoutMs: 5000,
          message: "B's task done while A's hold every slot",
        });
        expect(heard).toEqual(['1']);
        expect(started.map((w) => w.tenant)).toEqual(['tenant-a', 'tenant-a', 'tenant-b']);
        expect(peak()).toBe(3);
        // B's slot is not handed on to A: the worker is back to its two.
        await waitFor(async () => (await queue.queue.getJobCounts('completed')).completed === 1);
        expect(await queue.queue.getActiveCount()).toBe(2);
        expect(started.length).toBe(3);
      });
    }

    it('without headroom, B waits for a slot (and is then the next task taken)', async () => {
      const { name, prefix, queue } = setup('fair-no-headroom');
      const { started, completed, release } = gatedWorker(name, prefix, 0);
      await addFlood(queue, flood('tenant-a', 10));
      await waitFor(() => started.length === 2, { message: "two of A's tasks running" });
      await queue.add('work', { tenant: 'tenant-b', n: 0 }, { intentKey: 'b:0', tenantId: 'tenant-b' });
      await waitFor(async () => (await queue.queue.getPrioritizedCount()) === 9);
      expect(started.length).toBe(2);
      release();
      await waitFor(() => completed.length === 11, { timeoutMs: 30_000, message: 'all 11 done' });
      expect(started[2]!.tenant).toBe('tenant-b');
    });
  });
});
