import { type Logger, untraced, Wakeup } from '@hireflow/messaging';
import type { Closeable, ServiceDeps } from '@hireflow/runtime';
import pg from 'pg';
import type { WebhookConfig } from './config.ts';
import type { DeliveryQueue } from './deliveries.ts';
import { type DeliveryProcessorOptions, deliverClaimed } from './processor.ts';
import { EndpointAgents } from './sender.ts';
import {
  type ClaimedDelivery,
  type ClaimLimits,
  claimDueDeliveries,
  listenForDueDeliveries,
} from './store.ts';

/**
 * How often an idle worker claims without being woken: deliveries another
 * process made due (a retry's time come, a NOTIFY missed while reconnecting).
 */
export const DELIVERY_POLL_MS = 1000;
/** The longest wait between claims while Postgres is unreachable. */
const UNAVAILABLE_CAP_MS = 30_000;

export interface WebhookDelivery {
  /** Where this process's inbox says it made deliveries: a wake of this worker, no round trip. */
  queue: DeliveryQueue;
  closeables: Closeable[];
}

/** The delivery worker of jobs' worker role (docs/webhooks.md, "How deliveries are sent"). */
export function startWebhookDelivery(
  config: WebhookConfig,
  deps: Pick<ServiceDeps, 'orm'>,
  log: Logger,
): WebhookDelivery {
  const dispatcher = new DeliveryDispatcher({
    orm: deps.orm,
    log,
    capacity: config.WEBHOOK_WORKER_CONCURRENCY,
    limits: {
      endpointLimit: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      // A slot of a worker that died frees itself after this (an attempt ends within the timeout).
      leaseMs: config.WEBHOOK_TIMEOUT_MS + 5000,
    },
    closeTimeoutMs: config.WEBHOOK_TIMEOUT_MS + 2000,
    processor: {
      orm: deps.orm,
      send: {
        allowHttp: config.WEBHOOK_ALLOW_HTTP,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      },
      agents: new EndpointAgents(
        { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
        config.WEBHOOK_ENDPOINT_CONCURRENCY,
      ),
      schedule: {
        baseMs: config.WEBHOOK_RETRY_BASE_MS,
        capMs: config.WEBHOOK_RETRY_CAP_MS,
        windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      },
      log,
    },
  });
  dispatcher.start();
  return {
    queue: {
      async add(deliveryIds) {
        if (deliveryIds.length > 0) dispatcher.wake();
      },
    },
    closeables: [
      {
        name: 'webhook-worker',
        close: () => dispatcher.close(),
        timeoutMs: config.WEBHOOK_TIMEOUT_MS + 5000,
      },
    ],
  };
}

interface DispatcherOptions {
  orm: DeliveryProcessorOptions['orm'];
  log: Logger;
  /** Attempts in flight in this process at most. */
  capacity: number;
  limits: Omit<ClaimLimits, 'capacity'>;
  closeTimeoutMs: number;
  processor: DeliveryProcessorOptions;
}

/**
 * Claims due deliveries from the table as slots free up and sends them. The
 * table is the queue: a claim leases each delivery (it holds one of its
 * endpoint's slots), the recorded attempt gives the slot back, and a lease
 * that ends unrecorded (the worker died) makes the delivery due again, sent
 * with the same webhook-id. It claims again at once when an attempt ends
 * (a slot freed), when this process's inbox made deliveries, on a NOTIFY
 * (the API's test and retry), when a retry it scheduled is due, and else
 * every second.
 */
class DeliveryDispatcher {
  readonly #options: DispatcherOptions;
  readonly #wake = new Wakeup();
  readonly #running = new Set<Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #loop: Promise<void> | undefined;
  #listener: pg.Client | undefined;
  #closing = false;

  constructor(options: DispatcherOptions) {
    this.#options = options;
  }

  start(): void {
    // Claims and LISTEN are no trace of their own; each attempt joins its event's trace.
    untraced(() => {
      this.#listen().catch((error: unknown) => this.#lostListener(error));
      this.#loop = this.#run();
    });
  }

  wake(): void {
    this.#wake.signal();
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#wake.signal();
    await this.#loop;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    // Attempts in flight finish and are recorded; past the bound their leases bring them back.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#options.closeTimeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.#running]), bound]);
    clearTimeout(timer);
    if (this.#running.size > 0)
      this.#options.log.warn(
        { inFlight: this.#running.size },
        'webhook attempts still running at close: their deliveries are sent again when their leases end',
      );
    this.#options.processor.agents.close();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  async #run(): Promise<void> {
    let unavailable = 0;
    while (!this.#closing) {
      const free = this.#options.capacity - this.#running.size;
      if (free <= 0) {
        await this.#wake.wait(DELIVERY_POLL_MS);
        continue;
      }
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDueDeliveries(this.#options.orm.em.fork(), {
          ...this.#options.limits,
          capacity: free,
        });
        unavailable = 0;
      } catch (error) {
        const delayMs = Math.min(UNAVAILABLE_CAP_MS, DELIVERY_POLL_MS * 2 ** unavailable++);
        this.#options.log.warn({ err: error, delayMs }, 'webhook deliveries: claim failed; waiting');
        if (!this.#closing) await this.#wake.wait(delayMs);
        continue;
      }
      for (const delivery of claimed) this.#send(delivery);
      // All it asked for: more may be due, claimed when a slot frees (which wakes this loop).
      if (claimed.length === free || this.#closing) continue;
      await this.#wake.wait(DELIVERY_POLL_MS);
    }
  }

  #send(claimed: ClaimedDelivery): void {
    const run = deliverClaimed(this.#options.processor, claimed).then(
      (next) => {
        if (next) this.#wakeAt(next.getTime());
      },
      (error: unknown) =>
        this.#options.log.error(
          { err: error, deliveryId: claimed.delivery.id },
          'webhook attempt not recorded: the delivery is sent again when its lease ends',
        ),
    );
    this.#running.add(run);
    void run.finally(() => {
      this.#running.delete(run);
      this.#wake.signal();
    });
  }

  /** A retry due before the next poll is claimed on time. */
  #wakeAt(at: number): void {
    const delayMs = at - Date.now();
    if (this.#closing || delayMs >= DELIVERY_POLL_MS) return;
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        this.#wake.signal();
      },
      Math.max(0, delayMs),
    );
    timer.unref();
    this.#timers.add(timer);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.orm.url });
    client.on('notification', () => this.#wake.signal());
    client.on('error', (error) => {
      if (this.#listener === client) this.#listener = undefined;
      client.end().catch(() => undefined);
      this.#lostListener(error);
    });
    await client.connect();
    await listenForDueDeliveries(client);
    if (this.#closing) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#listener = client;
  }

  /** Without LISTEN the poll still finds every due delivery; reconnect in the background. */
  #lostListener(error: unknown): void {
    if (this.#closing) return;
    this.#options.log.warn({ err: error }, 'webhook LISTEN connection lost; polling until it is back');
    setTimeout(
      () => untraced(() => this.#listen().catch((again: unknown) => this.#lostListener(again))),
      DELIVERY_POLL_MS,
    ).unref();
  }
}
