// The topology and the catalog are written separately (the types tie them);
// this keeps them from drifting apart.

import { describe, expect, it } from 'vitest';
import {
  eventCatalog,
  eventTypes,
  filterPolicy,
  isEventType,
  laneQueue,
  serviceChannels,
  topology,
} from '../src/index.ts';

const KNOWN_UNCONSUMED: string[] = [];

const subscriptions = Object.entries(topology.queues).flatMap(([queue, def]) =>
  def.subscriptions.flatMap((s) => s.types.map((type) => ({ queue, topic: s.topic, type }))),
);

describe('catalog and topology agree', () => {
  it('every subscribed type exists in the catalog and is published on the topic subscribed to', () => {
    for (const { queue, topic, type } of subscriptions) {
      expect(isEventType(type), `${queue} subscribes to unknown type ${type}`).toBe(true);
      if (isEventType(type)) expect(eventCatalog[type].topic, `${queue}: ${type}`).toBe(topic);
    }
  });

  it("each topic's producer publishes types that queues subscribe to", () => {
    const unconsumed: string[] = [];
    for (const [topic, { producer }] of Object.entries(topology.topics)) {
      const published = eventTypes.filter((t) => eventCatalog[t].topic === topic);
      expect(published.length, `${topic} carries no catalog type`).toBeGreaterThan(0);
      for (const type of published) {
        expect(eventCatalog[type].producer, type).toBe(producer);
        if (!subscriptions.some((s) => s.topic === topic && s.type === type)) unconsumed.push(type);
      }
    }
    // Every published type has a consumer (media.failed.v1: jobs, for upload.failed webhooks).
    expect(unconsumed).toEqual(KNOWN_UNCONSUMED);
  });

  it('every catalog topic exists in the topology', () => {
    for (const type of eventTypes) expect(Object.keys(topology.topics)).toContain(eventCatalog[type].topic);
  });
});

describe('inboxes per lane (docs/fairness.md)', () => {
  const services = ['jobs', 'matching', 'notifications', 'media'] as const;

  it('give each service an interactive and a bulk queue with the same subscriptions', () => {
    for (const service of services) {
      const { inbox, bulkInbox } = serviceChannels(service);
      expect([inbox, bulkInbox]).toEqual([`${service}-inbox`, `${service}-inbox-bulk`]);
      expect(topology.queues[inbox!]!.lane).toBe('interactive');
      expect(topology.queues[bulkInbox!]!.lane).toBe('bulk');
      expect(topology.queues[bulkInbox!]!.subscriptions).toEqual(topology.queues[inbox!]!.subscriptions);
      expect(laneQueue(topology, inbox!, 'bulk')).toBe(bulkInbox);
      expect(laneQueue(topology, inbox!, 'interactive')).toBe(inbox);
    }
  });

  it('filter on the lane attribute so that each event matches exactly one of the two', () => {
    const def = topology.queues['notifications-inbox']!;
    const sub = def.subscriptions[0]!;
    const interactive = filterPolicy(def, sub);
    const bulk = filterPolicy(topology.queues['notifications-inbox-bulk']!, sub);
    expect(interactive.type).toEqual(bulk.type);
    expect(bulk.lane).toEqual(['bulk']);
    // Anything but bulk, or no lane attribute at all (the relay sets it only on bulk events).
    expect(interactive.lane).toEqual([{ 'anything-but': ['bulk'] }, { exists: false }]);
  });

  it('leave an inbox without lanes unfiltered by lane (a subscriber takes every event of its types)', () => {
    const { consumer, subscriptions, visibilityTimeoutSeconds, maxReceiveCount } =
      topology.queues['notifications-inbox']!;
    const def = { consumer, subscriptions, visibilityTimeoutSeconds, maxReceiveCount };
    expect(filterPolicy(def, def.subscriptions[0]!)).not.toHaveProperty('lane');
    expect(laneQueue({ ...topology, queues: { x: def } }, 'x', 'bulk')).toBe('x');
  });
});
