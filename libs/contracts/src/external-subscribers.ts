// A subscriber outside this repository (docs/subscribing.md, "From another
// repository"): its own inbox on Hireflow's topics, provisioned by `pnpm
// provision --subscriber` or the AWS stack's `-c subscribers=…`, never part
// of the topology the services read.
import type { EventType } from './events.ts';
import { registeredSubscribers } from './subscribers.registry.ts';
import {
  type SubscriberDefinition,
  subscriberInbox,
  subscriberProblems,
  subscriptionsFor,
} from './subscribers.ts';
import {
  type ConsumerName,
  DEFAULT_MAX_RECEIVE_COUNT,
  DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
  topology as hireflowTopology,
  type Topology,
} from './topology.ts';

export interface ExternalSubscriber {
  name: string;
  events: readonly EventType[];
}

/** What is wrong with an external subscriber: its name (not one of ours) and its event types. */
export function externalSubscriberProblems(subscriber: ExternalSubscriber): string[] {
  const problems = subscriberProblems(subscriber, registeredSubscribers as readonly SubscriberDefinition[]);
  return problems.map((problem) =>
    problem.startsWith('name: a subscriber')
      ? `name: ${subscriber.name} is a subscriber service of this repository`
      : problem,
  );
}

/**
 * The topology that provisions one external subscriber: the topics carrying
 * its types and its inbox `<name>-inbox` (DLQ, filter policy), with the
 * topology's retention and defaults. Provisioning it touches no other queue.
 */
export function externalSubscriberTopology(
  subscriber: ExternalSubscriber,
  base: Topology = hireflowTopology,
): Topology {
  const subscriptions = subscriptionsFor(subscriber.events);
  const topics = Object.fromEntries(
    subscriptions.map((s) => [s.topic, base.topics[s.topic]!]),
  ) as Topology['topics'];
  return {
    topics,
    queues: {
      [subscriberInbox(subscriber.name)]: {
        // Outside the repository's consumers by definition: the name only labels its queue.
        consumer: subscriber.name as ConsumerName,
        subscriptions,
        visibilityTimeoutSeconds: DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
        maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT,
      },
    },
    messageRetentionSeconds: base.messageRetentionSeconds,
    receiveWaitTimeSeconds: base.receiveWaitTimeSeconds,
  };
}

/** `analytics:job.posted.v1,candidate.registered.v1;crm:job.closed.v1` (CDK context) → subscribers, or the problems. */
export function parseExternalSubscribers(text: string): {
  subscribers: ExternalSubscriber[];
  problems: string[];
} {
  const subscribers: ExternalSubscriber[] = [];
  const problems: string[] = [];
  for (const part of text.split(/[;\s]+/).filter(Boolean)) {
    const [name = '', list = ''] = part.split(':');
    const subscriber = { name, events: list.split(',').filter(Boolean) as EventType[] };
    const own = externalSubscriberProblems(subscriber);
    if (subscribers.some((s) => s.name === name)) own.push(`name: ${name} is given twice`);
    problems.push(...own.map((problem) => `${name || part}: ${problem}`));
    subscribers.push(subscriber);
  }
  return { subscribers, problems };
}
