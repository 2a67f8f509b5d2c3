// Subscriber services (docs/subscribing.md): services that only consume
// Hireflow's events (an analytics sink, a CRM sync, a search indexer). Each
// is one entry of the registry (`subscribers.registry.ts`, appended to by
// `pnpm new:subscriber`), and the topology derives its inbox, DLQ and filter
// policy from the entry, so nothing else is edited by hand to subscribe.
import { type EventType, isEventType, topicOf } from './events.ts';
import { SERVICE_NAMES, SERVICE_PORT_BASE, type ServiceName, servicePort } from './services.ts';
import { registeredSubscribers, type SubscriberName } from './subscribers.registry.ts';
import type { ConsumerName, QueueDefinition, SubscriptionDefinition, TopicName } from './topology.ts';

export interface SubscriberDefinition {
  /** The service's name: its package `@hireflow/<name>` (in `services/<name>` unless `--dir` chose another folder), database (`hireflow_<name>`), Redis prefix, inbox `<name>-inbox`. */
  name: string;
  /** The event types its inbox receives (the filter policy). */
  events: readonly EventType[];
  /** Its service port (health); the admin port is this + 1000. */
  port: number;
}

/** The first subscriber's port (3101, admin 4101): clear of the four services and of those that may follow them. */
export const SUBSCRIBER_PORT_BASE = 3101;

/** Names a subscriber may not take: the services', and words the tooling uses. */
const RESERVED = new Set<string>([...SERVICE_NAMES, 'webhooks', 'gateway', 'emulator', 'launcher', 'ops']);

/** A subscriber's inbox queue (its DLQ is `<inbox>-dlq`). */
export const subscriberInbox = (name: string): string => `${name}-inbox`;

/** The subscriptions that bring these event types to one queue: one per topic, filtered on `type`. */
export function subscriptionsFor(events: readonly EventType[]): SubscriptionDefinition[] {
  const byTopic = new Map<TopicName, EventType[]>();
  for (const type of events) {
    const topic = topicOf(type);
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), type]);
  }
  // Each type is on its topic by construction (topicOf), which the mapped type cannot see.
  return [...byTopic].map(([topic, types]) => ({ topic, types }) as SubscriptionDefinition);
}

/** The queue a subscriber consumes, with the topology's documented defaults. */
export function subscriberQueue<N extends string>(
  subscriber: SubscriberDefinition & { name: N },
  defaults: Pick<QueueDefinition, 'visibilityTimeoutSeconds' | 'maxReceiveCount'>,
): Omit<QueueDefinition, 'consumer'> & { consumer: N } {
  return { consumer: subscriber.name, subscriptions: subscriptionsFor(subscriber.events), ...defaults };
}

/** The inboxes of the registered subscribers, by queue name (the topology's `queues` include them). */
export function registeredQueues(
  defaults: Pick<QueueDefinition, 'visibilityTimeoutSeconds' | 'maxReceiveCount'>,
): Record<string, QueueDefinition> {
  const queues: Record<string, QueueDefinition> = {};
  for (const subscriber of registeredSubscribers as readonly SubscriberDefinition[]) {
    // A registered subscriber's name is a SubscriberName by definition.
    const consumer = subscriber.name as SubscriberName;
    queues[subscriberInbox(subscriber.name)] = { ...subscriberQueue(subscriber, defaults), consumer };
  }
  return queues;
}

/**
 * What is wrong with a new subscriber among those registered: its name (a
 * lowercase word that is a folder, a database and a queue name at once), its
 * events (known, at least one, no repeat) and its port (free). Empty when none.
 */
export function subscriberProblems(
  subscriber: Omit<SubscriberDefinition, 'port'> & { port?: number },
  registered: readonly SubscriberDefinition[],
): string[] {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9-]{1,30}[a-z0-9]$/.test(subscriber.name)) {
    problems.push(
      'name: must be 3–32 lowercase letters, digits and "-", starting with a letter (it names a folder, a database and a queue)',
    );
  } else if (RESERVED.has(subscriber.name)) {
    problems.push(`name: ${subscriber.name} is taken by Hireflow itself`);
  } else if (registered.some((s) => s.name === subscriber.name)) {
    problems.push(`name: a subscriber ${subscriber.name} is already registered`);
  }
  if (subscriber.events.length === 0) problems.push('events: name at least one event type');
  for (const type of subscriber.events) {
    if (!isEventType(type)) problems.push(`events: ${String(type)} is not an event type of the catalog`);
  }
  if (new Set(subscriber.events).size !== subscriber.events.length)
    problems.push('events: a type is repeated');
  // An external subscriber (pnpm provision --subscriber) has no port of ours.
  if (subscriber.port === undefined) return problems;
  if (!Number.isInteger(subscriber.port) || subscriber.port < 1024 || subscriber.port > 64535) {
    problems.push('port: must be a whole number between 1024 and 64535 (the admin port is port + 1000)');
  } else if (registered.some((s) => s.port === subscriber.port)) {
    problems.push(`port: ${subscriber.port} is taken by another subscriber`);
  }
  return problems;
}

/** The port the next subscriber gets: one past the highest registered, from SUBSCRIBER_PORT_BASE. */
export function nextSubscriberPort(registered: readonly SubscriberDefinition[]): number {
  return registered.reduce((port, s) => Math.max(port, s.port + 1), SUBSCRIBER_PORT_BASE);
}

/** A subscriber's port counted from `base` (the launcher's HIREFLOW_PORT_BASE) as the services' are; 0 stays 0. */
export function subscriberPort(subscriber: SubscriberDefinition, base: number = SERVICE_PORT_BASE): number {
  return base === 0 ? 0 : subscriber.port + (base - SERVICE_PORT_BASE);
}

/** The registered subscriber services' names, in the registry's order. */
export const SUBSCRIBER_NAMES: readonly SubscriberName[] = (
  registeredSubscribers as readonly SubscriberDefinition[]
).map((subscriber) => subscriber.name as SubscriberName);

/** The registered subscriber of that name, if there is one. */
export function subscriberNamed(name: string): SubscriberDefinition | undefined {
  return (registeredSubscribers as readonly SubscriberDefinition[]).find((s) => s.name === name);
}

/** The default port of a service or of a registered subscriber, counted from `base`; 0 stays 0. */
export function consumerPort(name: ConsumerName, base: number = SERVICE_PORT_BASE): number {
  const services: readonly string[] = SERVICE_NAMES;
  if (services.includes(name)) return servicePort(name as ServiceName, base);
  const subscriber = subscriberNamed(name);
  if (!subscriber) throw new Error(`${name} is neither a service nor a registered subscriber`);
  return subscriberPort(subscriber, base);
}
