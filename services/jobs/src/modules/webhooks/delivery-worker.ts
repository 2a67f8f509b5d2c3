import { createTaskWorker, type TaskWorker } from '@hireflow/messaging';
import {
  type Closeable,
  concurrencySlots,
  type Logger,
  type PeriodicTask,
  type ServiceDeps,
} from '@hireflow/runtime';
import type { WebhookConfig } from './config.ts';
import { createDeliveryQueue, DELIVERY_QUEUE, type DeliveryQueue, type DeliveryTask } from './deliveries.ts';
import { deliveryProcessor } from './processor.ts';
import { overdueDeliveries } from './store.ts';

/** A pending delivery whose task is this late is added again (its add was lost, or Redis lost it). */
export const DELIVERY_SWEEP_GRACE_MS = 60_000;
const SWEEP_BATCH = 500;

export interface WebhookDelivery {
  queue: DeliveryQueue;
  worker: TaskWorker<DeliveryTask, string>;
  sweep: PeriodicTask;
  /** Worker first (it finishes its attempts), then the queue. */
  closeables: Closeable[];
}

/** The delivery worker of jobs' worker role, its queue, and the sweep that adds lost tasks again. */
export function startWebhookDelivery(
  config: WebhookConfig & { REDIS_PREFIX: string; REDIS_URL: string },
  deps: Pick<ServiceDeps, 'orm' | 'redis'>,
  log: Logger,
): WebhookDelivery {
  const slots = (limit: number, name: string) =>
    concurrencySlots({
      redis: deps.redis,
      prefix: `${config.REDIS_PREFIX}:${name}`,
      limit,
      // A slot of a worker that died frees itself after this.
      leaseMs: config.WEBHOOK_TIMEOUT_MS + 5000,
      log,
    });
  const queue = createDeliveryQueue({ connection: deps.redis, prefix: config.REDIS_PREFIX, logger: log });
  const worker = createTaskWorker<DeliveryTask, string>({
    name: DELIVERY_QUEUE,
    connection: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
    // A live worker renews its lock while it sends; a dead one's task is taken over (and sent again,
    // with the same webhook-id) within about twice this.
    lockDurationMs: config.WEBHOOK_TIMEOUT_MS + 5000,
    stalledIntervalMs: config.WEBHOOK_TIMEOUT_MS + 5000,
    closeTimeoutMs: config.WEBHOOK_TIMEOUT_MS + 2000,
    logger: log,
    tracerName: '@hireflow/jobs',
    processor: deliveryProcessor({
      orm: deps.orm,
      send: {
        allowHttp: config.WEBHOOK_ALLOW_HTTP,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      },
      schedule: {
        baseMs: config.WEBHOOK_RETRY_BASE_MS,
        capMs: config.WEBHOOK_RETRY_CAP_MS,
        windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      },
      slots: slots(config.WEBHOOK_ENDPOINT_CONCURRENCY, 'webhook-slots'),
      probeSlots: slots(1, 'webhook-probe'),
      log,
    }),
  });
  const sweep: PeriodicTask = {
    name: 'webhook-delivery-sweep',
    intervalMs: 30_000,
    run: async () => {
      const due = await overdueDeliveries(
        deps.orm.em.fork(),
        new Date(Date.now() - DELIVERY_SWEEP_GRACE_MS),
        SWEEP_BATCH,
      );
      for (const { id } of due) await queue.runNow(id);
    },
  };
  return {
    queue,
    worker,
    sweep,
    closeables: [
      {
        name: 'webhook-worker',
        close: async () => void (await worker.close()),
        timeoutMs: config.WEBHOOK_TIMEOUT_MS + 5000,
      },
      { name: 'webhook-queue', close: () => queue.close() },
    ],
  };
}
