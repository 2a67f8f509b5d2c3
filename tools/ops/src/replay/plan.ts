import {
  type EventType,
  eventCatalog,
  isEventType,
  type ServiceName,
  type Topology,
} from '@hireflow/contracts';

/** A replay's bad input (an unknown queue, a type the queue does not take): a message for the operator. */
export class ReplayInputError extends Error {
  override readonly name = 'ReplayInputError';
  readonly code = 'REPLAY_INPUT';
}

/** Whose events a replay reads: the producer, and the types of it the queue takes. */
export interface ReplaySource {
  producer: ServiceName;
  types: EventType[];
}

export interface ReplayPlan {
  /** The queue's logical name (the topology's, without a prefix). */
  queue: string;
  types: EventType[];
  /** Upstream producers first (jobs, then matching, then media), so dependencies arrive before what needs them. */
  sources: ReplaySource[];
}

const UPSTREAM_FIRST: ServiceName[] = ['jobs', 'matching', 'media', 'notifications'];

/**
 * What replaying into `queue` means: the types it subscribes to (all of them,
 * or the `types` asked for, each of which it must subscribe to, else its
 * consumer would dead-letter them) grouped by the producer whose log holds
 * them. A replay sends to one queue, never to a topic, so no other consumer
 * sees the events again.
 */
export function planReplay(topology: Topology, request: { queue: string; types?: string[] }): ReplayPlan {
  const definition = topology.queues[request.queue];
  if (!definition) {
    throw new ReplayInputError(
      `--to: ${JSON.stringify(request.queue)} is not a queue of the topology (queues: ${Object.keys(topology.queues).join(', ')})`,
    );
  }
  const subscribed = definition.subscriptions.flatMap((s) => s.types as EventType[]);
  let types = subscribed;
  if (request.types && request.types.length > 0) {
    const unknown = request.types.filter((t) => !isEventType(t));
    if (unknown.length > 0) {
      throw new ReplayInputError(
        `--types: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not in the event catalog`,
      );
    }
    const refused = request.types.filter((t) => !subscribed.includes(t as EventType));
    if (refused.length > 0) {
      throw new ReplayInputError(
        `--types: ${request.queue} does not subscribe to ${refused.join(', ')}: its consumer would dead-letter ${refused.length > 1 ? 'them' : 'it'} (it takes ${subscribed.join(', ')})`,
      );
    }
    types = subscribed.filter((t) => request.types!.includes(t));
  }
  const sources = UPSTREAM_FIRST.map((producer) => ({
    producer,
    types: types.filter((t) => eventCatalog[t].producer === producer),
  })).filter((source) => source.types.length > 0);
  return { queue: request.queue, types, sources };
}
