// Versions of one event (docs/contracts.md): the producer's copies in older
// versions, the consumer's upcast, and what a deprecation must satisfy.
import { randomUUID } from 'node:crypto';
import { Parser } from '@asyncapi/parser';
import { FIXTURE_SUNSET, jobPostedV2, versionedCatalog, versionedEvents } from '@hireflow/testing/versions';
import { describe, expect, it } from 'vitest';
import {
  buildAsyncApi,
  defineEventContracts,
  derivedEventId,
  eventCatalog,
  InvalidEventError,
  parseEvent,
  parseTypeName,
  publishedEvents,
} from '../src/index.ts';

const bridge = {
  sunset: '2027-06-30',
  downcast: (data: unknown) => data as never,
  upcast: (data: unknown) => data as never,
};

describe('event versions', () => {
  it('names versions <family>.v<N>', () => {
    expect(parseTypeName('job.posted.v2')).toEqual({ family: 'job.posted', version: 2 });
    expect(parseTypeName('job.posted')).toBeUndefined();
    expect(parseTypeName('job.posted.v0')).toBeUndefined();
  });

  it('copies a v2 event into v1 while v1 is deprecated: a valid v1, its id derived from the v2 id', () => {
    const v2 = jobPostedV2({ workplace: 'onsite' });
    const [same, v1] = versionedEvents.versionsOf(v2);
    expect(same).toEqual(v2);
    expect(v1).toMatchObject({
      type: 'job.posted.v1',
      id: derivedEventId(v2.id, 'job.posted.v1'),
      source: v2.source,
      subject: v2.subject,
      time: v2.time,
      data: { jobId: v2.data.postingId, remote: false, title: v2.data.title },
    });
    // What v1 consumers parse with Hireflow's own catalog, unchanged:
    expect(parseEvent(JSON.stringify(v1)).type).toBe('job.posted.v1');
    expect(versionedEvents.versionsOf(v2).map((e) => e.id)).toEqual([v2.id, v1!.id]);
  });

  it('stops copying after the sunset', () => {
    const v2 = jobPostedV2();
    const dayAfter = new Date(Date.parse(`${FIXTURE_SUNSET}T00:00:00Z`) + 86_400_000);
    expect(versionedEvents.versionsOf(v2, dayAfter)).toEqual([v2]);
    expect(versionedEvents.versionsOf(v2, new Date(`${FIXTURE_SUNSET}T23:59:59Z`))).toHaveLength(2);
  });

  it('upcasts a v1 event for a consumer that accepts v2, keeping its id', () => {
    const [, v1] = versionedEvents.versionsOf(jobPostedV2({ workplace: 'remote' }));
    const up = versionedEvents.upcast(v1!, (t) => t === 'job.posted.v2');
    expect(up).toMatchObject({ id: v1!.id, type: 'job.posted.v2', data: { workplace: 'remote' } });
    expect(versionedEvents.upcast(v1!, () => false)).toBeUndefined();
  });

  it('makes a broken upcaster poison: InvalidEventError naming the step', () => {
    const broken = defineEventContracts(versionedCatalog, {
      'job.posted.v1': { replacedBy: 'job.posted.v2', ...bridge, upcast: (d) => ({ ...d }) as never },
    });
    const [, v1] = versionedEvents.versionsOf(jobPostedV2());
    let error: unknown;
    try {
      broken.upcast(v1!, (t) => t === 'job.posted.v2');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidEventError);
    expect((error as InvalidEventError).message).toMatch(
      /after upcasting job\.posted\.v1 to job\.posted\.v2/,
    );
  });

  it('refuses a deprecation that cannot work', () => {
    const make =
      (from: string, to: string, sunset = bridge.sunset) =>
      () =>
        defineEventContracts(versionedCatalog, { [from]: { ...bridge, replacedBy: to, sunset } } as never);
    expect(make('job.posted.v1', 'job.posted.v3')).toThrow(/job\.posted\.v3 is not in the catalog/);
    expect(make('job.posted.v1', 'job.closed.v1')).toThrow(/not a later version of the same event/);
    expect(make('job.posted.v2', 'job.posted.v1')).toThrow(/not a later version/);
    expect(make('job.posted.v1', 'job.posted.v2', 'June')).toThrow(/not a YYYY-MM-DD date/);
    const elsewhere = {
      ...versionedCatalog,
      'job.posted.v2': { ...versionedCatalog['job.posted.v2'], topic: 'media-events' },
    };
    expect(() =>
      defineEventContracts(
        elsewhere as never,
        { 'job.posted.v1': { ...bridge, replacedBy: 'job.posted.v2' } } as never,
      ),
    ).toThrow(/same topic from the same producer/);
  });

  it('publishes the deprecation in the event schema and in a valid AsyncAPI document', async () => {
    expect(publishedEvents(versionedEvents)['job.posted.v1']).toMatchObject({
      deprecated: true,
      'x-sunset': FIXTURE_SUNSET,
      'x-replaced-by': 'job.posted.v2',
    });
    const doc = buildAsyncApi(versionedEvents) as {
      components: { messages: Record<string, Record<string, unknown>>; schemas: Record<string, unknown> };
    };
    expect(doc.components.messages['job.posted.v1']).toMatchObject({
      'x-sunset': FIXTURE_SUNSET,
      'x-replaced-by': 'job.posted.v2',
      summary: expect.stringContaining(
        `Deprecated: replaced by job.posted.v2, published until ${FIXTURE_SUNSET}.`,
      ),
    });
    expect(doc.components.schemas['job.posted.v1']).toMatchObject({ deprecated: true });
    const { diagnostics } = await new Parser().parse(JSON.stringify(doc));
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  });

  it("leaves Hireflow's own catalog without v2", () => {
    expect(Object.keys(eventCatalog)).not.toContain('job.posted.v2');
    expect(() => parseEvent({ ...jobPostedV2(), id: randomUUID() })).toThrow(
      /unknown event type "job.posted.v2"/,
    );
  });
});
