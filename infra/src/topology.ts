// The one declarative definition of Hireflow's messaging topology (DESIGN.md,
// "Topology"). The provisioner applies it to any SNS/SQS endpoint (the local
// emulator, AWS) and the CloudFormation generator turns it into a stack.

export type ServiceName = 'jobs' | 'matching' | 'notifications' | 'media';

export interface TopicDefinition {
  /** The only service that publishes to this topic. */
  producer: ServiceName;
}

export interface SubscriptionDefinition {
  topic: string;
  /** Event types (the `type` message attribute) this queue receives from the topic. */
  types: string[];
}

export interface QueueDefinition {
  consumer: ServiceName;
  subscriptions: SubscriptionDefinition[];
  /** Starting visibility timeout; consumers resize it from their measured p99 handler time. */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

export interface Topology {
  topics: Record<string, TopicDefinition>;
  queues: Record<string, QueueDefinition>;
  /** Retention of queues and their DLQs: SQS's maximum, so a dead letter waits two weeks for a human. */
  messageRetentionSeconds: number;
  /** Long-poll wait the queues default to. */
  receiveWaitTimeSeconds: number;
}

/** Documented default: 30 s covers every handler's p99 with margin; long handlers heartbeat. */
export const DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;
export const DEFAULT_MAX_RECEIVE_COUNT = 5;

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
      { topic: 'media-events', types: ['media.processed.v1'] },
    ]),
    'matching-inbox': queue('matching', [
      { topic: 'jobs-events', types: ['job.posted.v1', 'job.closed.v1', 'candidate.registered.v1'] },
    ]),
    'notifications-inbox': queue('notifications', [
      { topic: 'jobs-events', types: ['job.posted.v1', 'candidate.registered.v1'] },
      { topic: 'matching-events', types: ['match.found.v1', 'job.matched.v1'] },
    ]),
    // DESIGN.md lists three inboxes, but media consumes apikey.* events to keep
    // its projection of key hashes, so it needs one too (docs/decisions.md).
    'media-inbox': queue('media', [
      { topic: 'jobs-events', types: ['apikey.issued.v1', 'apikey.revoked.v1'] },
    ]),
  },
  messageRetentionSeconds: 14 * 24 * 3600,
  receiveWaitTimeSeconds: 20,
};

export const dlqName = (queueName: string): string => `${queueName}-dlq`;

/** The topic a service publishes to and the queue it consumes. */
export function serviceChannels(
  service: ServiceName,
  t: Topology = topology,
): { topic?: string; inbox?: string } {
  const topic = Object.entries(t.topics).find(([, def]) => def.producer === service)?.[0];
  const inbox = Object.entries(t.queues).find(([, def]) => def.consumer === service)?.[0];
  return { topic, inbox };
}
