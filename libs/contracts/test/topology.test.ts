// The topology and the catalog are written separately (the types tie them);
// this keeps them from drifting apart.

import { describe, expect, it } from 'vitest';
import { eventCatalog, eventTypes, isEventType, topology } from '../src/index.ts';

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
