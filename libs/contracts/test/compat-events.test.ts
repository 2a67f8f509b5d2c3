// `pnpm contracts:check` on events: each kind of breaking change, made on a
// copy of the catalog, is refused with its own finding; additions pass.
import { versionedEvents } from '@hireflow/testing/versions';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  apikeyIssuedData,
  type Catalog,
  type CatalogEntry,
  compareEvents,
  defineEventContracts,
  eventCatalog,
  type Finding,
  hireflowEvents,
  jobClosedData,
  jobPostedData,
  KEEP_AFTER_SUNSET_DAYS,
  matchFoundData,
  publishedEvents,
} from '../src/index.ts';

const released = publishedEvents(hireflowEvents);
const NOW = new Date('2026-12-01T12:00:00Z');

/** The findings of the check for a copy of the catalog changed by `edit`. */
function check(edit: (catalog: Record<string, CatalogEntry>) => void, now = NOW): Finding[] {
  const copy: Record<string, CatalogEntry> = { ...eventCatalog };
  edit(copy);
  return compareEvents(released, publishedEvents(defineEventContracts(copy as Catalog)), now);
}

const withData = (type: keyof typeof eventCatalog, data: z.ZodType) => (c: Record<string, CatalogEntry>) => {
  c[type] = { ...eventCatalog[type], data };
};

const breaks = (findings: Finding[]) =>
  findings.filter((f) => f.breaking).map((f) => `${f.subject} ${f.path} ${f.kind}`.replace('  ', ' '));

describe('contracts:check on the event catalog', () => {
  it('passes on the catalog as released', () => {
    expect(compareEvents(released, publishedEvents(hireflowEvents), NOW)).toEqual([]);
  });

  it('refuses a removed field', () => {
    const findings = check(withData('job.closed.v1', jobClosedData.omit({ closedAt: true })));
    expect(breaks(findings)).toEqual(['job.closed.v1 data.closedAt field-removed']);
    expect(findings[0]!.why).toBe('consumers read this field');
  });

  it('refuses a renamed field, and names the likely new name', () => {
    const renamed = jobClosedData.omit({ jobId: true }).extend({ postingId: z.uuid() });
    const findings = check(withData('job.closed.v1', renamed));
    expect(breaks(findings)).toEqual([
      'job.closed.v1 data.jobId field-removed',
      'job.closed.v1 data.postingId field-added-required',
    ]);
    expect(findings[0]!.detail).toBe('removed (renamed to postingId?)');
  });

  it('refuses a type change', () => {
    const findings = check(withData('match.found.v1', matchFoundData.extend({ score: z.string() })));
    expect(breaks(findings)).toContain('match.found.v1 data.score type-changed');
  });

  it('refuses an optional field made required (new consumers would refuse what is queued)', () => {
    const data = jobPostedData.extend({ location: jobPostedData.shape.location.optional() });
    const loosened = check(withData('job.posted.v1', data));
    expect(breaks(loosened)).toEqual(['job.posted.v1 data.location made-optional']);
    expect(loosened[0]!.why).toMatch(/^consumers built with the released contracts/);
    // And the other way: the released optional `subject` of the envelope made required.
    const schema = (c: Record<string, CatalogEntry>) => {
      const event = publishedEvents(defineEventContracts(c as Catalog))['job.closed.v1']!;
      (event.required as string[]).push('subject');
      return event;
    };
    const findings = compareEvents(
      released,
      { ...released, 'job.closed.v1': schema({ ...eventCatalog }) },
      NOW,
    );
    expect(breaks(findings)).toEqual(['job.closed.v1 subject made-required']);
    expect(findings[0]!.why).toMatch(/would refuse messages already sent/);
  });

  it('refuses a narrowed enum, and a widened one', () => {
    const owner = (values: [string, ...string[]]) => (c: Record<string, CatalogEntry>) => {
      c['media.processed.v1'] = {
        ...eventCatalog['media.processed.v1'],
        data: z.object({
          ...eventCatalog['media.processed.v1'].data.shape,
          ownerType: z.enum(values).optional(),
        }),
      };
    };
    expect(breaks(check(owner(['job'])))).toEqual(['media.processed.v1 data.ownerType enum-narrowed']);
    expect(breaks(check(owner(['job', 'candidate', 'tenant'])))).toEqual([
      'media.processed.v1 data.ownerType enum-widened',
    ]);
  });

  it('refuses a narrowed format and a new constraint: a shorter maxLength, a new pattern', () => {
    const dated = apikeyIssuedData.extend({ issuedAt: z.iso.date() });
    expect(breaks(check(withData('apikey.issued.v1', dated)))).toContain(
      'apikey.issued.v1 data.issuedAt format-changed',
    );
    const shorter = jobPostedData.extend({ title: z.string().min(1).max(100) });
    const findings = check(withData('job.posted.v1', shorter));
    expect(findings.find((f) => f.path === 'data.title' && f.kind === 'bound-changed')).toMatchObject({
      detail: 'maxLength 200 → 100',
      breaking: true,
    });
    const patterned = jobPostedData.extend({
      location: z
        .string()
        .max(200)
        .regex(/^[A-Z]/),
    });
    expect(breaks(check(withData('job.posted.v1', patterned)))).toContain(
      'job.posted.v1 data.location pattern-changed',
    );
  });

  it('refuses a longer maxLength too: consumers of the release would refuse the longer text', () => {
    const longer = jobPostedData.extend({ title: z.string().min(1).max(400) });
    const finding = check(withData('job.posted.v1', longer)).find(
      (f) => f.path === 'data.title' && f.kind === 'bound-changed',
    );
    expect(finding).toMatchObject({ kind: 'bound-changed', breaking: true });
    expect(finding!.why).toMatch(/^consumers built with the released contracts/);
  });

  it('refuses a removed event type unless it is a year past its sunset', () => {
    expect(breaks(check((c) => delete c['job.matched.v1']))).toEqual(['job.matched.v1 type-removed']);
    const sunset = '2026-01-31';
    const deprecatedRelease = {
      ...released,
      'job.posted.v1': { ...released['job.posted.v1'], 'x-sunset': sunset, 'x-replaced-by': 'job.posted.v2' },
    };
    const current = publishedEvents(hireflowEvents);
    delete current['job.posted.v1'];
    expect(breaks(compareEvents(deprecatedRelease, current, NOW))).toEqual(['job.posted.v1 type-removed']);
    const later = new Date(Date.parse(`${sunset}T00:00:00Z`) + (KEEP_AFTER_SUNSET_DAYS + 1) * 86_400_000);
    expect(compareEvents(deprecatedRelease, current, later)).toMatchObject([
      { subject: 'job.posted.v1', kind: 'type-removed', breaking: false },
    ]);
  });

  it('refuses a changed topic, and a changed producer', () => {
    const moved = check((c) => {
      c['job.closed.v1'] = { ...eventCatalog['job.closed.v1'], topic: 'matching-events' as never };
    });
    expect(breaks(moved)).toEqual(['job.closed.v1 topic-changed']);
    const adopted = check((c) => {
      c['job.closed.v1'] = { ...eventCatalog['job.closed.v1'], producer: 'matching' as never };
    });
    expect(breaks(adopted)).toEqual(['job.closed.v1 producer-changed']);
  });

  it('passes an added optional field, and says so', () => {
    const findings = check(
      withData('job.posted.v1', jobPostedData.extend({ salary: z.number().optional() })),
    );
    expect(findings).toEqual([
      {
        subject: 'job.posted.v1',
        path: 'data.salary',
        kind: 'field-added-optional',
        detail: 'added, optional',
        breaking: false,
      },
    ]);
  });

  it('passes a new version published beside a deprecated one, with a window long enough', () => {
    const findings = compareEvents(released, publishedEvents(versionedEvents), NOW);
    expect(findings.filter((f) => f.breaking)).toEqual([]);
    expect(findings.map((f) => `${f.subject} ${f.kind}`).sort()).toEqual([
      'job.posted.v1 deprecated',
      'job.posted.v2 type-added',
    ]);
  });

  it('refuses a deprecation with less than 90 days to its sunset, and a sunset brought forward', () => {
    const soon = compareEvents(
      released,
      publishedEvents(versionedEvents),
      new Date(Date.now() + 100 * 86_400_000),
    );
    expect(breaks(soon)).toEqual(['job.posted.v1 deprecation-window']);
    const deprecated = publishedEvents(versionedEvents);
    const earlier = { ...deprecated['job.posted.v1'], 'x-sunset': '2027-03-01' };
    const findings = compareEvents(deprecated, { ...deprecated, 'job.posted.v1': earlier }, NOW);
    expect(breaks(findings)).toEqual(['job.posted.v1 sunset-earlier']);
  });
});
