import { pruneExpired } from '@hireflow/idempotency';
import {
  DEFAULT_CONCURRENCY,
  type EventHandlers,
  interactiveReserve,
  OutboxRelay,
  redisSupersededMarks,
  SharedSlots,
  SnsPublisher,
  SqsConsumer,
  type SqsConsumerOptions,
} from '@hireflow/messaging';
import { resolveChannels } from './channels.ts';
import type { ServiceDeps } from './deps.ts';
import type { Closeable } from './lifecycle.ts';
import type { Logger } from './logger.ts';
import { type PeriodicTask, startPeriodicTasks } from './maintenance.ts';

/** Expired idempotency keys go hourly (they are kept far longer than any redelivery). */
export const IDEMPOTENCY_PRUNE_INTERVAL_MS = 3_600_000;
/** docs/design.md: the visibility timeout follows the handlers' measured p99, re-read every 5 min. */
export const VISIBILITY_RESIZE_INTERVAL_MS = 300_000;

export interface InboxOptions {
  /** The service's handlers, one per event type its inbox receives. */
  handlers: EventHandlers;
  /** The consumer's settings a service may change (defaults: docs/messaging.md). */
  consumer?: Pick<SqsConsumerOptions, 'concurrency' | 'maxDeferMs' | 'onMessage' | 'fairness'>;
  /** How long the relay keeps what it published for replays (EVENT_LOG_RETENTION_DAYS); services that publish. */
  eventLogRetentionDays?: number;
  /** The service's own periodic tasks, run beside the inbox's (pruning, the visibility resize). */
  housekeeping?: PeriodicTask[];
  log: Logger;
}

export interface Inbox {
  readonly consumer: SqsConsumer;
  /**
   * The consumer of the bulk lane's queue (docs/fairness.md, "Inboxes per
   * lane"): the same handlers on the events of imports and replays, so they
   * wait in a queue of their own and never in front of interactive ones.
   * Undefined for an inbox without lanes (a subscriber's).
   */
  readonly bulkConsumer: SqsConsumer | undefined;
  /** The outbox relay; undefined for a service whose topology has no topic (it publishes nothing). */
  readonly relay: OutboxRelay | undefined;
  /**
   * The worker role's closeables in shutdown order: housekeeping, the
   * consumer (no new event), then `own` in the order given (the service's
   * BullMQ workers finish what they run, their queues, its clients), then
   * the relay, which flushes to SNS what all of them committed.
   */
  closeables(own?: Closeable[]): Closeable[];
}

/**
 * What every service's worker role runs around its own work: the SQS
 * consumer of its inbox, the outbox relay of its topic (when it has one),
 * and the housekeeping of both (idempotency keys pruned, the visibility
 * timeout resized from the measured p99) with the service's own tasks.
 */
export async function startInbox(deps: ServiceDeps, options: InboxOptions): Promise<Inbox> {
  const { log } = options;
  const channels = await resolveChannels(deps);
  if (!channels.inbox) throw new Error(`the topology gives ${deps.service} no inbox queue`);
  const relay =
    Object.keys(channels.topicArns).length > 0
      ? new OutboxRelay({
          orm: deps.orm,
          publisher: new SnsPublisher(deps.sns),
          topicArns: channels.topicArns,
          ...(options.eventLogRetentionDays === undefined
            ? {}
            : { eventLogRetentionMs: options.eventLogRetentionDays * 24 * 3_600_000 }),
          logger: log,
        })
      : undefined;
  const superseded = redisSupersededMarks(deps.redis, `hf:${deps.service}`);
  // With fairness, the two lanes' consumers share the process's slots
  // (docs/fairness.md): at most `concurrency` handlers in all, the bulk lane
  // leaving a tenth to the interactive one, which is offered freed slots first.
  const concurrency = options.consumer?.concurrency ?? DEFAULT_CONCURRENCY;
  const shared = options.consumer?.fairness ? new SharedSlots(concurrency) : undefined;
  const consume = (queue: NonNullable<typeof channels.inbox>, reserve: number) =>
    new SqsConsumer({
      sqs: deps.sqs,
      queue,
      handlers: options.handlers,
      logger: log,
      superseded,
      ...options.consumer,
      concurrency,
      ...(shared ? { slots: { shared, reserve } } : {}),
    });
  const consumer = consume(channels.inbox, 0);
  const bulkConsumer = channels.bulkInbox
    ? consume(channels.bulkInbox, interactiveReserve(concurrency))
    : undefined;
  const consumers = [consumer, ...(bulkConsumer ? [bulkConsumer] : [])];
  await relay?.start();
  try {
    for (const each of consumers) await each.start();
  } catch (error) {
    await Promise.all(consumers.map((each) => each.close()));
    await relay?.close();
    throw error;
  }
  const housekeeping = startPeriodicTasks(
    [
      {
        name: 'idempotency-prune',
        intervalMs: IDEMPOTENCY_PRUNE_INTERVAL_MS,
        run: () => pruneExpired(deps.orm),
      },
      {
        name: 'visibility-resize',
        intervalMs: VISIBILITY_RESIZE_INTERVAL_MS,
        run: async () => {
          for (const each of consumers) await each.resizeVisibilityTimeout();
        },
      },
      ...(options.housekeeping ?? []),
    ],
    log,
  );
  return {
    consumer,
    bulkConsumer,
    relay,
    closeables: (own = []) => [
      housekeeping,
      { name: 'sqs-consumer', close: async () => void (await Promise.all(consumers.map((c) => c.close()))) },
      ...own,
      ...(relay ? [{ name: 'outbox-relay', close: () => relay.close() }] : []),
    ],
  };
}
