import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/modules/tenants/api-keys.ts';
import { type JobsHarness, startJobsHarness, validCandidate, validPosting } from './harness.ts';

let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-api');
});
afterAll(async () => {
  await h?.close();
});

const outbox = (type: string) =>
  h.deps.orm.em
    .fork()
    .execute<{ event_id: string; payload: { subject: string; data: Record<string, unknown> } }[]>(
      'SELECT event_id, payload FROM outbox WHERE type = ? ORDER BY id',
      [type],
    );

async function createPosting(auth = h.tenants.a.auth, body: object = validPosting) {
  const res = await h.app.inject({ method: 'POST', url: '/v1/jobs', headers: auth, payload: body });
  expect(res.statusCode).toBe(202);
  return res.json<{ id: string; status: string; traceId: string | null }>();
}

describe('POST /v1/jobs', () => {
  it('answers 202 with an id to poll, and writes the posting and its job.posted.v1 together', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: h.tenants.a.auth,
      payload: validPosting,
    });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toMatchObject({ status: 'processing' });
    expect(res.headers.location).toBe(`/v1/jobs/${body.id}`);

    const got = await h.app.inject({
      method: 'GET',
      url: res.headers.location as string,
      headers: h.tenants.a.auth,
    });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({
      id: body.id,
      status: 'processing',
      title: validPosting.title,
      contactEmail: `${await tenantName(h.tenants.a.tenantId)}@example.test`,
      matchCount: null,
    });
    const events = (await outbox('job.posted.v1')).filter((e) => e.payload.subject === body.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload.data).toMatchObject({
      jobId: body.id,
      tenantId: h.tenants.a.tenantId,
      skills: validPosting.skills,
    });
  });

  it('uses the given contactEmail over the tenant contact', async () => {
    const { id } = await createPosting(h.tenants.a.auth, {
      ...validPosting,
      contactEmail: 'hiring@acme.test',
    });
    const got = await h.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: h.tenants.a.auth });
    expect(got.json().contactEmail).toBe('hiring@acme.test');
  });
});

async function tenantName(tenantId: string): Promise<string> {
  const rows = await h.deps.orm.em
    .fork()
    .execute<{ name: string }[]>('SELECT name FROM tenant WHERE id = ?', [tenantId]);
  return rows[0]!.name;
}

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['a malformed header', { authorization: 'Basic abc' }],
    ['an unknown key', { authorization: 'Bearer hf_nope' }],
  ])('rejects %s with 401 problem+json', async (_label, headers) => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/jobs', headers });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toContain('Bearer');
    expect(res.json()).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
      errors: [{ field: 'authorization' }],
    });
  });

  it('rejects a revoked key (after the lookup cache expires)', async () => {
    const other = await startJobsHarness('jobs-revoke');
    try {
      const before = await other.app.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: other.tenants.b.auth,
      });
      expect(before.statusCode).toBe(200);
      await revokeApiKey(other.deps.orm.em.fork(), other.tenants.b.keyId);
      const revoked = await other.deps.orm.em
        .fork()
        .execute('SELECT 1 FROM outbox WHERE type = ?', ['apikey.revoked.v1']);
      expect(revoked).toHaveLength(1);
      // A fresh app has a cold cache: the revocation is in force.
      const { buildApp } = await import('@hireflow/jobs');
      const fresh = await buildApp(other.config, other.deps);
      try {
        const after = await fresh.inject({ method: 'GET', url: '/v1/jobs', headers: other.tenants.b.auth });
        expect(after.statusCode).toBe(401);
      } finally {
        await fresh.close();
      }
    } finally {
      await other.close();
    }
  });
});

describe('tenant isolation: a foreign id is 404 on every route', () => {
  let postingId: string;
  let candidateId: string;
  beforeAll(async () => {
    postingId = (await createPosting()).id;
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/candidates',
      headers: h.tenants.a.auth,
      payload: { ...validCandidate, email: 'isolated@example.test' },
    });
    candidateId = res.json().id;
  });

  it.each([
    ['GET', '/v1/jobs/:job'],
    ['GET', '/v1/jobs/:job/matches'],
    ['GET', '/v1/jobs/:job/events'],
    ['POST', '/v1/jobs/:job/close'],
    ['GET', '/v1/candidates/:candidate'],
    ['GET', '/v1/candidates/:candidate/matches'],
  ] as const)('%s %s', async (method, route) => {
    const url = route.replace(':job', postingId).replace(':candidate', candidateId);
    const foreign = await h.app.inject({ method, url, headers: h.tenants.b.auth });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    if (!url.endsWith('/events') && method === 'GET') {
      const own = await h.app.inject({ method, url, headers: h.tenants.a.auth });
      expect(own.statusCode).toBe(200);
    }
  });

  it('lists only the own tenant’s postings and candidates', async () => {
    const jobs = await h.app.inject({ method: 'GET', url: '/v1/jobs?limit=100', headers: h.tenants.b.auth });
    expect(jobs.json().items.map((j: { id: string }) => j.id)).not.toContain(postingId);
    const candidates = await h.app.inject({
      method: 'GET',
      url: '/v1/candidates?limit=100',
      headers: h.tenants.b.auth,
    });
    expect(candidates.json().items.map((c: { id: string }) => c.id)).not.toContain(candidateId);
  });
});

describe('POST /v1/jobs/:id/close', () => {
  it('closes once and emits job.closed.v1 once', async () => {
    const { id } = await createPosting();
    for (let i = 0; i < 2; i++) {
      const res = await h.app.inject({
        method: 'POST',
        url: `/v1/jobs/${id}/close`,
        headers: h.tenants.a.auth,
      });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ id, status: 'closed' });
    }
    const got = await h.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: h.tenants.a.auth });
    expect(got.json()).toMatchObject({ status: 'closed' });
    expect(got.json().closedAt).not.toBeNull();
    expect((await outbox('job.closed.v1')).filter((e) => e.payload.subject === id)).toHaveLength(1);
  });
});

describe('POST /v1/candidates', () => {
  it('registers once per tenant and email: a second registration returns the same candidate and emits nothing', async () => {
    const email = 'Grace.Hopper@Example.test';
    const first = await h.app.inject({
      method: 'POST',
      url: '/v1/candidates',
      headers: h.tenants.a.auth,
      payload: { ...validCandidate, email },
    });
    expect(first.statusCode).toBe(202);
    const again = await h.app.inject({
      method: 'POST',
      url: '/v1/candidates',
      headers: h.tenants.a.auth,
      payload: { ...validCandidate, email: email.toLowerCase(), name: 'Grace' },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    const events = (await outbox('candidate.registered.v1')).filter(
      (e) => e.payload.subject === first.json().id,
    );
    expect(events).toHaveLength(1);
    // another tenant may register the same person
    const other = await h.app.inject({
      method: 'POST',
      url: '/v1/candidates',
      headers: h.tenants.b.auth,
      payload: { ...validCandidate, email },
    });
    expect(other.statusCode).toBe(202);
    expect(other.json().id).not.toBe(first.json().id);
  });

  it('registers concurrently sent duplicates once', async () => {
    const payload = { ...validCandidate, email: 'race@example.test' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.app.inject({ method: 'POST', url: '/v1/candidates', headers: h.tenants.a.auth, payload }),
      ),
    );
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(1);
    const id = results[0]!.json().id;
    expect((await outbox('candidate.registered.v1')).filter((e) => e.payload.subject === id)).toHaveLength(1);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for a retry with the same key and body', async () => {
    const headers = { ...h.tenants.a.auth, 'idempotency-key': 'post-job-1' };
    const first = await h.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: validPosting });
    const retry = await h.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: validPosting });
    expect(retry.statusCode).toBe(202);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.location).toBe(first.headers.location);
    expect((await outbox('job.posted.v1')).filter((e) => e.payload.subject === first.json().id)).toHaveLength(
      1,
    );
  });

  it('answers 422 for the same key with another body', async () => {
    const headers = { ...h.tenants.a.auth, 'idempotency-key': 'post-job-2' };
    await h.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: validPosting });
    const other = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers,
      payload: { ...validPosting, title: 'Other' },
    });
    expect(other.statusCode).toBe(422);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers 409 for the same key while the first request is in flight', async () => {
    const headers = { ...h.tenants.a.auth, 'idempotency-key': 'post-job-3' };
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        h.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: validPosting }),
      ),
    );
    const codes = results.map((r) => r.statusCode);
    // One ran; every other either saw it in flight (409) or replayed it (202, replayed).
    expect(codes.every((c) => c === 202 || c === 409)).toBe(true);
    const ran = results.filter((r) => r.statusCode === 202 && r.headers['idempotent-replayed'] !== 'true');
    expect(ran).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      expect(r.json()).toMatchObject({ status: 409 });
    }
  });

  it('keeps two tenants’ keys apart', async () => {
    const key = { 'idempotency-key': 'shared-key' };
    const a = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { ...h.tenants.a.auth, ...key },
      payload: validPosting,
    });
    const b = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { ...h.tenants.b.auth, ...key },
      payload: validPosting,
    });
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().id).not.toBe(a.json().id);
  });
});

describe('pagination', () => {
  it('walks every posting once with the cursor', async () => {
    const p = await startJobsHarness('jobs-pages');
    try {
      const ids = [];
      for (let i = 0; i < 7; i++) {
        const res = await p.app.inject({
          method: 'POST',
          url: '/v1/jobs',
          headers: p.tenants.a.auth,
          payload: validPosting,
        });
        ids.push(res.json().id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/jobs?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await p.app.inject({ method: 'GET', url, headers: p.tenants.a.auth });
        expect(res.statusCode).toBe(200);
        const body = res.json<{ items: { id: string }[]; nextCursor: string | null }>();
        expect(body.items.length).toBeLessThanOrEqual(3);
        seen.push(...body.items.map((j) => j.id));
        cursor = body.nextCursor;
      } while (cursor);
      expect(seen.sort()).toEqual([...ids].sort());
      const bad = await p.app.inject({
        method: 'GET',
        url: '/v1/jobs?cursor=zzz',
        headers: p.tenants.a.auth,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].field).toBe('cursor');
    } finally {
      await p.close();
    }
  });
});

describe('rate limit per API key', () => {
  it('answers 429 with Retry-After past the limit, per key', async () => {
    const limited = await startJobsHarness('jobs-rate', {
      RATE_LIMIT_MAX: '3',
      RATE_LIMIT_WINDOW_MS: '60000',
    });
    try {
      const codes = [];
      for (let i = 0; i < 4; i++) {
        codes.push(
          (await limited.app.inject({ method: 'GET', url: '/v1/jobs', headers: limited.tenants.a.auth }))
            .statusCode,
        );
      }
      expect(codes).toEqual([200, 200, 200, 429]);
      const over = await limited.app.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: limited.tenants.a.auth,
      });
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(over.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      // another key of another tenant is not limited by the first one's use
      expect(
        (await limited.app.inject({ method: 'GET', url: '/v1/jobs', headers: limited.tenants.b.auth }))
          .statusCode,
      ).toBe(200);
      // health is never limited
      expect((await limited.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('review fixes', () => {
  it('a retry whose Idempotency-Key claim was lost (expired lease, crash before storing) finds the same posting', async () => {
    const headers = { ...h.tenants.a.auth, 'idempotency-key': 'lost-claim' };
    const first = await h.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: validPosting });
    expect(first.statusCode).toBe(202);
    // the stored response is gone, as after a crash between commit and recording it
    await h.deps.orm.em.fork().execute(`DELETE FROM processed_message WHERE key LIKE '%lost-claim%'`);
    const retry = await h.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: validPosting });
    expect(retry.statusCode).toBe(202);
    expect(retry.json().id).toBe(first.json().id);
    expect((await outbox('job.posted.v1')).filter((e) => e.payload.subject === first.json().id)).toHaveLength(
      1,
    );
  });

  it('authenticates by the matched route, not the raw URL', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/%761/jobs', payload: validPosting });
    expect(res.statusCode).toBe(401);
  });

  it.each([
    [
      'an id of dashes',
      Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', '-'.repeat(36)])).toString('base64url'),
    ],
    [
      'a time out of range',
      Buffer.from(
        JSON.stringify(['-100000-01-01T00:00:00.000Z', '00000000-0000-4000-8000-000000000000']),
      ).toString('base64url'),
    ],
  ])('answers 400, not 500, for a forged cursor: %s', async (_label, cursor) => {
    for (const url of ['/v1/jobs', '/v1/candidates']) {
      const res = await h.app.inject({
        method: 'GET',
        url: `${url}?cursor=${cursor}`,
        headers: h.tenants.a.auth,
      });
      expect(res.statusCode).toBe(400);
    }
  });
});

describe('ROLE=worker', () => {
  it('serves health for its orchestrator and no public route', async () => {
    const { buildApp } = await import('@hireflow/jobs');
    const worker = await buildApp({ ...h.config, ROLE: 'worker' }, h.deps);
    try {
      expect((await worker.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      expect((await worker.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      const api = await worker.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: h.tenants.a.auth,
        payload: validPosting,
      });
      expect(api.statusCode).toBe(404);
    } finally {
      await worker.close();
    }
  });
});
