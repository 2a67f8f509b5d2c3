// A task queue that loads BullMQ on its first use (issue 31): for a process
// that may enqueue now and then but must not carry BullMQ (~10 MB of RSS,
// 171 modules) from its start, such as an API process that queues a task
// after an upload or a confirmation. Only types are imported from queue.ts:
// this module, and the package's index that exports it, load no BullMQ.
import { madeOnFirstUse } from '../first-use.ts';
import { untraced } from '../quiet.ts';
import type { TaskQueue, TaskQueueOptions } from './queue.ts';

/** A task queue whose BullMQ queue is made on first use: `TaskQueue` without the BullMQ handle. */
export type LazyTaskQueue<Data> = Omit<TaskQueue<Data>, 'queue'>;

/**
 * `createTaskQueue` deferred to the first call of any method: then BullMQ is
 * imported and one task queue made, whatever the number of calls waiting for
 * it (they share it). Each call behaves as the task queue's own (its add
 * timeout, its producer spans in the caller's trace); an error on the way to
 * it rejects the calls that waited, and the next call tries again (a failed
 * construction is retried; a module that failed to load stays failed, as Node
 * caches it). `close` before any use loads nothing.
 */
export function lazyTaskQueue<Data>(options: TaskQueueOptions): LazyTaskQueue<Data> {
  const queue = madeOnFirstUse(
    // Made outside the first caller's trace, as one made at start would be: the
    // connection's set-up and the queue's timers belong to no request.
    () => import('./queue.ts').then(({ createTaskQueue }) => untraced(() => createTaskQueue<Data>(options))),
    (tasks) => tasks.close(),
    `the task queue ${options.name} is closed`,
  );
  return {
    add: async (name, data, addOptions) => (await queue.get()).add(name, data, addOptions),
    addBulk: async (jobs) => (jobs.length === 0 ? [] : (await queue.get()).addBulk(jobs)),
    makeRoom: async (intentKey) => (await queue.get()).makeRoom(intentKey),
    retryDeadLetter: async (intentKey) => (await queue.get()).retryDeadLetter(intentKey),
    deadLetterCount: async () => (await queue.get()).deadLetterCount(),
    deadLetters: async (start, end) => (await queue.get()).deadLetters(start, end),
    close: () => queue.close(),
  };
}
