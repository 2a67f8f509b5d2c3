import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEvent, type EventData, eventTypes, InvalidEventError, parseEvent } from '../src/index.ts';

const jobPosted = (): EventData<'job.posted.v1'> => ({
  jobId: randomUUID(),
  tenantId: randomUUID(),
  title: 'Staff engineer',
  description: 'Build the thing.',
  skills: ['typescript', 'postgres'],
  location: 'Berlin',
  remote: true,
  contactEmail: 'hiring@example.com',
  postedAt: '2026-11-29T10:00:00Z',
});

function issuesOf(fn: () => unknown): InvalidEventError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidEventError) return error;
    throw error;
  }
  throw new Error('expected InvalidEventError');
}

describe('event catalog', () => {
  it('lists the v1 event types of docs/design.md', () => {
    expect([...eventTypes].sort()).toEqual(
      [
        'apikey.issued.v1',
        'apikey.revoked.v1',
        'candidate.registered.v1',
        'job.closed.v1',
        'job.matched.v1',
        'job.posted.v1',
        'match.found.v1',
        'media.failed.v1',
        'media.processed.v1',
        'webhook.endpoint.disabled.v1',
      ].sort(),
    );
  });

  it('creates a CloudEvents 1.0 envelope that parses back to the same event', () => {
    const data = jobPosted();
    const event = createEvent('job.posted.v1', data, { source: 'hireflow/jobs', subject: data.jobId });
    expect(event).toMatchObject({
      specversion: '1.0',
      source: 'hireflow/jobs',
      type: 'job.posted.v1',
      subject: data.jobId,
      datacontenttype: 'application/json',
      data,
    });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(event.time))).toBe(false);

    const parsed = parseEvent(JSON.stringify(event));
    expect(parsed).toEqual(event);
    if (parsed.type === 'job.posted.v1') expect(parsed.data.skills).toEqual(data.skills);
  });

  it('rejects invalid data when producing, listing every issue', () => {
    const error = issuesOf(() =>
      createEvent(
        'job.posted.v1',
        { ...jobPosted(), contactEmail: 'nope', jobId: 'x' },
        { source: 'hireflow/jobs' },
      ),
    );
    expect(error.code).toBe('INVALID_EVENT');
    expect(error.type).toBe('job.posted.v1');
    expect(error.issues.map((i) => i.path).sort()).toEqual(['data.contactEmail', 'data.jobId']);
  });

  it('rejects an unknown type, a missing type, a non-object and non-JSON', () => {
    const base = createEvent(
      'job.closed.v1',
      { jobId: randomUUID(), tenantId: randomUUID(), closedAt: '2026-11-29T10:00:00.000Z' },
      { source: 'hireflow/jobs' },
    );
    const unknown = issuesOf(() => parseEvent({ ...base, type: 'job.deleted.v1' }));
    expect(unknown.issues).toEqual([{ path: 'type', message: 'unknown event type "job.deleted.v1"' }]);
    expect(unknown.type).toBe('job.deleted.v1');
    expect(issuesOf(() => parseEvent({ ...base, type: undefined })).issues[0]!.message).toBe('missing type');
    expect(issuesOf(() => parseEvent([])).issues[0]!.message).toBe('expected a JSON object');
    expect(issuesOf(() => parseEvent('{oops')).issues[0]!.message).toMatch(/^not JSON/);
  });

  it('rejects envelope violations: spec version, source, time, extra length', () => {
    const event = createEvent(
      'media.failed.v1',
      { uploadId: randomUUID(), tenantId: randomUUID(), reason: 'corrupt' },
      { source: 'hireflow/media' },
    );
    const error = issuesOf(() =>
      parseEvent({
        ...event,
        specversion: '0.3',
        source: 'media',
        time: 'yesterday',
        data: { ...event.data, reason: 'x'.repeat(1001) },
      }),
    );
    expect(error.issues.map((i) => i.path).sort()).toEqual(['data.reason', 'source', 'specversion', 'time']);
  });

  it('API10: refuses an event from a service that is not its producer', () => {
    const event = createEvent(
      'job.matched.v1',
      { jobId: randomUUID(), tenantId: randomUUID(), matchCount: 1, computedAt: new Date().toISOString() },
      { source: 'hireflow/matching' },
    );
    const error = issuesOf(() => parseEvent({ ...event, source: 'hireflow/jobs' }));
    expect(error.issues).toEqual([
      { path: 'source', message: 'must be hireflow/matching, the producer of job.matched.v1' },
    ]);
    expect(() =>
      createEvent(
        'job.closed.v1',
        { jobId: randomUUID(), tenantId: randomUUID(), closedAt: event.time },
        {
          source: 'hireflow/media',
        },
      ),
    ).toThrow(InvalidEventError);
  });

  it('API10: refuses text that Postgres or a reader cannot take (NUL, control characters, lone surrogates)', () => {
    const event = createEvent(
      'candidate.registered.v1',
      {
        candidateId: randomUUID(),
        tenantId: randomUUID(),
        name: 'Ada',
        email: 'ada@example.test',
        headline: 'Engineer',
        skills: ['node'],
        location: 'London',
      },
      { source: 'hireflow/jobs' },
    );
    const bad = { ...event.data, name: 'Ada\u0000', headline: 'two\nlines', skills: ['\ud800'] };
    const error = issuesOf(() => parseEvent({ ...event, data: bad }));
    expect([...new Set(error.issues.map((i) => i.path))].sort()).toEqual([
      'data.headline',
      'data.name',
      'data.skills.0',
    ]);
  });

  it('refuses text SQS cannot carry (U+FFFF, U+FFFE), in the data and in the envelope: poison', () => {
    const event = createEvent(
      'job.closed.v1',
      { jobId: randomUUID(), tenantId: randomUUID(), closedAt: new Date().toISOString() },
      { source: 'hireflow/jobs', subject: 'posting' },
    );
    expect(issuesOf(() => parseEvent({ ...event, subject: 'posting\uffff' })).issues).toEqual([
      { path: 'subject', message: expect.stringMatching(/characters a message can carry/) },
    ]);
    const posted = issuesOf(() =>
      createEvent(
        'job.posted.v1',
        {
          jobId: randomUUID(),
          tenantId: randomUUID(),
          title: 'Engineer',
          description: 'Build things\ufffe',
          skills: [],
          location: '',
          remote: true,
          contactEmail: 'hr@example.test',
          postedAt: new Date().toISOString(),
        },
        { source: 'hireflow/jobs' },
      ),
    );
    expect(posted.issues.map((i) => i.path)).toEqual(['data.description']);
  });

  it('API10: refuses variant URLs that are not http(s): javascript:, file:, data:', () => {
    const variant = { name: 'thumb', width: 10, height: 10, contentType: 'image/webp' };
    const data = (url: string) => ({
      uploadId: randomUUID(),
      tenantId: randomUUID(),
      ownerType: 'job' as const,
      ownerId: randomUUID(),
      uploadedAt: new Date().toISOString(),
      variants: [{ ...variant, url }],
    });
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:image/png;base64,AAAA']) {
      expect(
        () => createEvent('media.processed.v1', data(url) as never, { source: 'hireflow/media' }),
        url,
      ).toThrow(InvalidEventError);
    }
    expect(() =>
      createEvent('media.processed.v1', data('https://media.example/v.webp') as never, {
        source: 'hireflow/media',
      }),
    ).not.toThrow();
  });

  it('media.processed.v1: an owner is both ownerType and ownerId or neither, and carries uploadedAt', () => {
    const variant = {
      name: 'thumb',
      width: 1,
      height: 1,
      contentType: 'image/webp',
      url: 'http://x.test/a.webp',
    };
    const data = {
      uploadId: randomUUID(),
      tenantId: randomUUID(),
      uploadedAt: '2026-11-29T10:00:00.000Z',
      variants: [variant],
    };
    const source = { source: 'hireflow/media' } as const;
    expect(createEvent('media.processed.v1', data, source).data).toEqual(data);
    const owned = { ...data, ownerType: 'job' as const, ownerId: randomUUID() };
    expect(createEvent('media.processed.v1', owned, source).data).toEqual(owned);
    const half = issuesOf(() => createEvent('media.processed.v1', { ...data, ownerType: 'job' }, source));
    expect(half.issues).toEqual([{ path: 'data.ownerId', message: 'ownerType and ownerId go together' }]);
    const tenant = issuesOf(() =>
      createEvent('media.processed.v1', { ...owned, ownerType: 'tenant' as never }, source),
    );
    expect(tenant.issues.map((i) => i.path)).toEqual(['data.ownerType']);
    const { uploadedAt: _, ...undated } = data;
    expect(issuesOf(() => createEvent('media.processed.v1', undated as never, source)).issues[0]!.path).toBe(
      'data.uploadedAt',
    );
  });
});
