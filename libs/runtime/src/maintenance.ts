import { inHousekeepingSpan } from '@hireflow/telemetry';
import type { Logger } from 'pino';
import type { Closeable } from './lifecycle.ts';

export interface PeriodicTask {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
}

/**
 * Runs housekeeping on intervals inside the worker role (pruning idempotency
 * keys, resizing an SQS visibility timeout from the measured p99). A task
 * never overlaps itself; a failure is logged and retried at the next tick.
 * Tasks must be safe to run in several workers at once. Each run is traced
 * as the root of its own trace, `housekeeping <name>`.
 */
export function startPeriodicTasks(tasks: PeriodicTask[], log: Logger): Closeable {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  let closed = false;
  for (const task of tasks) {
    let busy = false;
    const tick = () => {
      if (busy || closed) return;
      busy = true;
      // Its own trace, named `housekeeping <name>`: never a nameless root of SQL spans.
      const run = inHousekeepingSpan(task.name, () => task.run())
        .then((result) => log.debug({ task: task.name, result }, 'periodic task done'))
        .catch((error) => log.error({ err: error, task: task.name }, 'periodic task failed'))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    const timer = setInterval(tick, task.intervalMs);
    timer.unref();
    timers.push(timer);
  }
  return {
    name: 'periodic-tasks',
    close: async () => {
      closed = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running);
    },
  };
}
