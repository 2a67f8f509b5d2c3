// The one declarative definition of Hireflow's messaging topology
// (docs/design.md, "Topology"): which service owns which topic, queue and
// bucket, and which event types each subscription takes. It is a contract,
// like the catalog: services read it to find their channels, and the tooling
// (tools/ops provisions it on the emulator or AWS; deploy/aws turns it into
// the AWS stack).
// Subscriptions are typed by the catalog, so the compiler refuses a type that
// is not published on the topic subscribed to.
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
   * the message. It stops a message that kills every worker taking it.
   */
  maxReceiveCount: number;
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
/** Ten deaths of workers holding the same delivery (see QueueDefinition.maxReceiveCount). */
export const DEFAULT_MAX_RECEIVE_COUNT = 10;

const queue = (consumer: ServiceName, subscriptions: SubscriptionDefinition[]): QueueDefinition => ({
  consumer,
  subscriptions,
  visibilityTimeoutSeconds: DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
  maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT,
});

export const topology: Topology = {
  topics: {
    'jobs-events': { producer: 'jobs' },
    'matching-events': { producer: 'matching' },
    'media-events': { producer: 'media' },
  },
  queues: {
    'jobs-inbox': queue('jobs', [
      { topic: 'matching-events', types: ['job.matched.v1', 'match.found.v1'] },
      { topic: 'media-events', types: ['media.processed.v1', 'media.failed.v1'] },
      // Its own events too, for the webhooks they become (docs/webhooks.md).
      { topic: 'jobs-events', types: ['job.closed.v1', 'candidate.registered.v1'] },
    ]),
    'matching-inbox': queue('matching', [
      { topic: 'jobs-events', types: ['job.posted.v1', 'job.closed.v1', 'candidate.registered.v1'] },
    ]),
    'notifications-inbox': queue('notifications', [
      {
        topic: 'jobs-events',
        types: ['job.posted.v1', 'candidate.registered.v1', 'webhook.endpoint.disabled.v1'],
      },
      { topic: 'matching-events', types: ['match.found.v1', 'job.matched.v1'] },
    ]),
    // media consumes apikey.* events to keep its projection of key hashes, and
    // the postings and candidates (their ids only) that uploads may name as owner.
    'media-inbox': queue('media', [
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

/** The topic a service publishes to, the queue it consumes and the bucket it owns (logical names). */
export function serviceChannels(
  service: ConsumerName,
  t: Topology = topology,
): { topic?: TopicName; inbox?: string; bucket?: string } {
  const topic = (Object.entries(t.topics) as [TopicName, TopicDefinition][]).find(
    ([, def]) => def.producer === service,
  )?.[0];
  const inbox = Object.entries(t.queues).find(([, def]) => def.consumer === service)?.[0];
  const bucket = Object.entries(t.buckets ?? {}).find(([, def]) => def.owner === service)?.[0];
  return { topic, inbox, bucket };
}
