import { eventTypes, parseEvent } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { sampleEvent } from './samples.ts';

describe('sampleEvent', () => {
  it.each(eventTypes)('%s: a valid event from its producer, new ids each call', (type) => {
    const a = sampleEvent(type);
    expect(parseEvent(JSON.parse(JSON.stringify(a)))).toEqual(a);
    expect(a.source).toMatch(/^hireflow\//);
    expect(sampleEvent(type).id).not.toBe(a.id);
    expect(sampleEvent(type).data).not.toEqual(a.data);
  });

  it('takes overrides, and refuses data the catalog refuses', () => {
    expect(sampleEvent('job.closed.v1', { closedAt: '2026-01-01T00:00:00Z' }).data.closedAt).toBe(
      '2026-01-01T00:00:00Z',
    );
    expect(() => sampleEvent('job.matched.v1', { matchCount: -1 })).toThrow(/matchCount/);
  });
});
