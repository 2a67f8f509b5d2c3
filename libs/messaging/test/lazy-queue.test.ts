// The task queue an API process enqueues through (issue 31): BullMQ loaded
// on the first call, one queue for the calls that race to it, an error on
// the way to it the caller's, a close before any use free of BullMQ.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { uniqueName } from '@hireflow/testing';
import { moduleRecorder, packagesOf } from '@hireflow/testing/modules';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTaskQueue } from '../src/bullmq/queue.ts';
import { lazyTaskQueue, taskIdFor } from '../src/index.ts';
import { REDIS } from './task-queues.ts';

vi.mock('../src/bullmq/queue.ts', async (actual) => {
  const module = await actual<typeof import('../src/bullmq/queue.ts')>();
  return { ...module, createTaskQueue: vi.fn(module.createTaskQueue) };
});

const made = vi.mocked(createTaskQueue);
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  made.mockClear();
});

/** A lazy queue of the test's own, and a plain BullMQ handle on it to look inside (removed after). */
function setup(label: string) {
  const name = uniqueName(label);
  const prefix = `hftest-${uniqueName('lazy')}`;
  const lazy = lazyTaskQueue<{ n: number }>({ name, connection: REDIS, prefix });
  const redis = new URL(REDIS);
  const look = new Queue(name, { connection: { host: redis.hostname, port: Number(redis.port) }, prefix });
  cleanups.push(async () => {
    await lazy.close();
    await look.obliterate({ force: true });
    await look.close();
  });
  return { lazy, look };
}

describe('a lazy task queue', () => {
  it('makes one task queue for the calls that race to its first use, and adds as it does', async () => {
    const { lazy, look } = setup('lazy-race');
    expect(made).not.toHaveBeenCalled();
    const ids = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => lazy.add('work', { n }, { intentKey: `work:${n}` })),
    );
    expect(made).toHaveBeenCalledTimes(1);
    expect(ids).toEqual([1, 2, 3, 4, 5].map((n) => taskIdFor(`work:${n}`)));
    // A duplicate add is a no-op, through the same queue.
    expect(await lazy.add('work', { n: 1 }, { intentKey: 'work:1' })).toBe(ids[0]);
    expect(await look.getJobCounts('waiting')).toEqual({ waiting: 5 });
    expect(await lazy.deadLetterCount()).toBe(0);
    expect(made).toHaveBeenCalledTimes(1);
  });

  it('gives an error on the way to its queue to the callers, and tries again on the next call', async () => {
    const { lazy, look } = setup('lazy-error');
    made.mockImplementationOnce(() => {
      throw new Error('no queue today');
    });
    const first = [1, 2].map((n) => lazy.add('work', { n }, { intentKey: `work:${n}` }));
    for (const call of first) await expect(call).rejects.toThrow('no queue today');
    expect(await lazy.add('work', { n: 3 }, { intentKey: 'work:3' })).toBe(taskIdFor('work:3'));
    expect(made).toHaveBeenCalledTimes(2);
    expect(await look.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });

  it('closes before any use without making a queue, and refuses a use after its close', async () => {
    const { lazy } = setup('lazy-close');
    await lazy.close();
    expect(made).not.toHaveBeenCalled();
    await expect(lazy.add('work', { n: 1 }, { intentKey: 'work:1' })).rejects.toThrow(/closed/);
    expect(made).not.toHaveBeenCalled();
  });

  it('is made and closed by a process that never loads BullMQ', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hireflow-lazy-'));
    const file = join(dir, 'modules.txt');
    const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const script = `const { lazyTaskQueue } = await import(${JSON.stringify(index)});
      await lazyTaskQueue({ name: 'never', connection: ${JSON.stringify(REDIS)} }).close();`;
    try {
      const run = spawnSync(
        process.execPath,
        ['--import', moduleRecorder, '--input-type=module', '--eval', script],
        { encoding: 'utf8', env: { ...process.env, LOADED_MODULES_FILE: file } },
      );
      expect(run.status, run.stderr).toBe(0);
      const modules = (await readFile(file, 'utf8')).split('\n');
      expect(modules.some((url) => url.endsWith('/libs/messaging/src/bullmq/lazy-queue.ts'))).toBe(true);
      expect(packagesOf(modules).has('bullmq')).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
