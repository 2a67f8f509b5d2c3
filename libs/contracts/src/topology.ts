// The one declarative definition of Hireflow's messaging topology
// (docs/design.md, "Topology"): which service owns which topic, queue and
// bucket, and which event types each subscription takes. It is a contract,
// like the catalog: services read it to find their channels, and the tooling
// (tools/ops provisions it on the emulator or AWS; deploy/aws turns it into
// the AWS stack).
// Subscriptions are typed by the catalog, so the compiler refuses a type that
// is not published on the topic subscribed to.
import type { EventLane } from './envelope.ts';
import type { EventTypeOn, ServiceName, TopicName } from './events.ts';
import type { SubscriberName } from './subscribers.registry.ts';
import { registeredQueues } from './subscribers.ts';

export type { ServiceName, TopicName } from './events.ts';

/** Who consumes a queue: one of the services, or a subscriber service of the registry (docs/subscribing.md). */
export type ConsumerName = ServiceName | SubscriberName;

export interface TopicDefinition {
  /** The only service that publishes to this topic. */
  producer: ServiceName;
}

/** A queue's subscription to one topic: the `type` attribute values it receives from it. */
export type SubscriptionDefinition = {
  [T in TopicName]: { topic: T; types: EventTypeOn<T>[] };
}[TopicName];

export interface QueueDefinition {
  consumer: ConsumerName;
  subscriptions: SubscriptionDefinition[];
  /** Starting visibility timeout; consumers resize it from their measured p99 handler time. */
  visibilityTimeoutSeconds: number;
  /**
   * SQS's redrive bound. Consumers settle every receive they finish (a failure
   * or a wait re-sends the message with a fresh receive count, and they
   * dead-letter it themselves after their own attempts), so this only counts
   * deliveries that ended with no verdict: a worker killed or paused holding
   * the message, or a consumer hiding it for fairness (at most twice). It
   * stops a message that kills every worker taking it.
   */
  maxReceiveCount: number;
  /**
   * The lane of the events the queue takes (docs/fairness.md, "Inboxes per
   * lane"): a service's inbox with lanes is two queues, `<inbox>` for
   * interactive events and `<inbox>-bulk` for those whose `lane` message
   * attribute says bulk, so an import waits in its own queue, not in front of
   * a person's posting. Absent: every event of its types (a subscriber's inbox).
   */
  lane?: EventLane;
}

export interface BucketDefinition {
  /** The only service that reads and writes the bucket. */
  owner: ServiceName;
}

export interface Topology {
  topics: Partial<Record<TopicName, TopicDefinition>>;
  queues: Record<string, QueueDefinition>;
  /** S3 buckets (logical names; the prefix applies as to queues). */
  buckets?: Record<string, BucketDefinition>;
  /** Retention of queues and their DLQs: SQS's maximum, so a dead letter waits two weeks for a human. */
  messageRetentionSeconds: number;
  /** Long-poll wait the queues default to. */
  receiveWaitTimeSeconds: number;
}

/** Documented default: 30 s covers every handler's p99 with margin; long handlers heartbeat. */
export const DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;
/**
 * Ten deaths of workers holding the same delivery (see
 * QueueDefinition.maxReceiveCount), plus the two receives the consumer's
 * fairness may spend hiding a message behind its tenant's flood
 * (libs/messaging's fair intake, `maxHides` 2; docs/fairness.md): a hidden
 * message keeps the whole crash budget of ten.
 */
export const DEFAULT_MAX_RECEIVE_COUNT = 12;

const queue = (consumer: ServiceName, subscriptions: SubscriptionDefinition[]): QueueDefinition => ({
  consumer,
  subscriptions,
  visibilityTimeoutSeconds: DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
  maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT,
});

/** The bulk lane's queue beside a service's inbox (docs/fairness.md). */
const bulkQueueName = (inbox: string): string => `${inbox}-bulk`;

/** A service's inbox as two queues, one per lane, with the same subscriptions. */
const laned = (inbox: string, consumer: ServiceName, subscriptions: SubscriptionDefinition[]) => ({
  [inbox]: { ...queue(consumer, subscriptions), lane: 'interactive' as const },
  [bulkQueueName(inbox)]: { ...queue(consumer, subscriptions), lane: 'bulk' as const },
});

export const topology: Topology = {
  topics: {
    'jobs-events': { producer: 'jobs' },
    'matching-events': { producer: 'matching' },
    'media-events': { producer: 'media' },
  },
  queues: {
    ...laned('jobs-inbox', 'jobs', [
      { topic: 'matching-events', types: ['job.matched.v1', 'match.found.v1'] },
      { topic: 'media-events', types: ['media.processed.v1', 'media.failed.v1'] },
      // Its own events too, for the webhooks they become (docs/webhooks.md).
      { topic: 'jobs-events', types: ['job.closed.v1', 'candidate.registered.v1'] },
    ]),
    ...laned('matching-inbox', 'matching', [
      { topic: 'jobs-events', types: ['job.posted.v1', 'job.closed.v1', 'candidate.registered.v1'] },
    ]),
    ...laned('notifications-inbox', 'notifications', [
      {
        topic: 'jobs-events',
        types: ['job.posted.v1', 'candidate.registered.v1', 'webhook.endpoint.disabled.v1'],
      },
      { topic: 'matching-events', types: ['match.found.v1', 'job.matched.v1'] },
    ]),
    // media consumes apikey.* events to keep its projection of key hashes, and
    // the postings and candidates (their ids only) that uploads may name as owner.
    ...laned('media-inbox', 'media', [
      {
        topic: 'jobs-events',
        types: ['apikey.issued.v1', 'apikey.revoked.v1', 'job.posted.v1', 'candidate.registered.v1'],
      },
    ]),
    // Each subscriber service of the registry: `<name>-inbox`, filtered on its event types.
    ...registeredQueues({
      visibilityTimeoutSeconds: DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
      maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT,
    }),
  },
  buckets: {
    // Originals and image variants (docs/media.md has the key layout).
    media: { owner: 'media' },
  },
  messageRetentionSeconds: 14 * 24 * 3600,
  receiveWaitTimeSeconds: 20,
};

export const dlqName = (queueName: string): string => `${queueName}-dlq`;

/**
 * The SNS filter policy of a queue's subscription (on message attributes):
 * its types, and for a queue of a lane the `lane` attribute, `bulk` for the
 * bulk queue and anything else or none for the interactive one (the relay
 * sets it only on bulk events), so each event lands in exactly one of the two.
 */
export function filterPolicy(queue: QueueDefinition, subscription: SubscriptionDefinition): FilterPolicy {
  const policy: FilterPolicy = { type: [...subscription.types].sort() };
  if (queue.lane === 'bulk') policy.lane = ['bulk'];
  if (queue.lane === 'interactive') policy.lane = [{ 'anything-but': ['bulk'] }, { exists: false }];
  return policy;
}

export type FilterPolicy = Record<string, (string | Record<string, unknown>)[]>;

/**
 * The topic a service publishes to, the queue it consumes (its interactive
 * lane's when it has lanes), the bulk lane's queue beside it, and the bucket
 * it owns (logical names).
 */
export function serviceChannels(
  service: ConsumerName,
  t: Topology = topology,
): { topic?: TopicName; inbox?: string; bulkInbox?: string; bucket?: string } {
  const topic = (Object.entries(t.topics) as [TopicName, TopicDefinition][]).find(
    ([, def]) => def.producer === service,
  )?.[0];
  const queues = Object.entries(t.queues).filter(([, def]) => def.consumer === service);
  const inbox = queues.find(([, def]) => def.lane !== 'bulk')?.[0];
  const bulkInbox = queues.find(([, def]) => def.lane === 'bulk')?.[0];
  const bucket = Object.entries(t.buckets ?? {}).find(([, def]) => def.owner === service)?.[0];
  return { topic, inbox, ...(bulkInbox ? { bulkInbox } : {}), bucket };
}

/** Where work of `lane` for the consumer of `queue` goes: the bulk lane's queue beside it when there is one. */
export function laneQueue(t: Topology, queue: string, lane: EventLane): string {
  const def = t.queues[queue];
  if (lane !== 'bulk' || !def || def.lane !== 'interactive') return queue;
  const bulk = bulkQueueName(queue);
  return t.queues[bulk]?.lane === 'bulk' ? bulk : queue;
}
