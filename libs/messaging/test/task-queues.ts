import { uniqueName } from '@hireflow/testing';
import { afterEach } from 'vitest';
import { createTaskQueue, type TaskQueueOptions } from '../src/tasks.ts';

export const REDIS = 'redis://127.0.0.1:6379';

/**
 * Task queues of a test file's own (their names and prefixes unique), removed
 * with their tasks after each test, with whatever else `cleanups` is given
 * (workers), last added first.
 */
export function useTaskQueues() {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });
  function setup<Data>(label: string, options: Pick<TaskQueueOptions, 'attempts' | 'backoff'> = {}) {
    const name = uniqueName(label);
    const prefix = `hftest-${uniqueName('bull')}`;
    const queue = createTaskQueue<Data>({ name, connection: REDIS, prefix, ...options });
    cleanups.push(async () => {
      await queue.queue.obliterate({ force: true });
      await queue.close();
    });
    return { name, prefix, queue };
  }
  return { setup, cleanups };
}
