// BullMQ task queues and workers (`@hireflow/messaging/tasks`), apart from the
// package's index: BullMQ is ~8 MB of a process's RSS (~6 MB of V8 heap,
// bench/footprint-imports.ts), and a service that never queues a task (jobs)
// imports the index only, so it does not load BullMQ at all (issue 31,
// test/role-modules.test.ts). The lane helpers, `taskIdFor` and
// `dropRetiredQueue` (which loads BullMQ only when there is a queue to drop)
// stay in the index.
export {
  DEFAULT_REMOVE_ON_COMPLETE,
  DEFAULT_REMOVE_ON_FAIL,
  DEFAULT_TASK_ATTEMPTS,
  DEFAULT_TASK_BACKOFF,
  FULL_JITTER,
} from './bullmq/defaults.ts';
export type { BulkTask, DeadLetter, TaskQueue, TaskQueueOptions } from './bullmq/queue.ts';
export { createTaskQueue } from './bullmq/queue.ts';
export type { TenantLimit } from './bullmq/tenant-limit.ts';
export type { TaskWorker, TaskWorkerOptions } from './bullmq/worker.ts';
export {
  createTaskWorker,
  DEFAULT_WORKER_CLOSE_TIMEOUT_MS,
  DEFAULT_WORKER_CONCURRENCY,
} from './bullmq/worker.ts';
