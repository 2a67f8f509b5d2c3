import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness } from './harness.ts';

let h: JobsHarness;

beforeAll(async () => {
  h = await startJobsHarness('jobs-webhooks-api', { WEBHOOK_ALLOW_HTTP: 'false' });
});
afterAll(async () => {
  await h?.close();
});

const create = (payload: unknown, auth = h.tenants.a.auth) =>
  h.app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: payload as object });

describe('POST /v1/webhooks', () => {
  it('registers an endpoint and shows its whsec_ secret once', async () => {
    const res = await create({
      url: 'https://ats.example.com/hooks',
      events: ['posting.matched', 'upload.ready'],
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(body).toMatchObject({ url: 'https://ats.example.com/hooks', enabled: true, description: '' });
    expect(res.headers.location).toBe(`/v1/webhooks/${body.id}`);

    const got = await h.app.inject({
      method: 'GET',
      url: `/v1/webhooks/${body.id}`,
      headers: h.tenants.a.auth,
    });
    expect(got.statusCode).toBe(200);
    expect(got.json()).not.toHaveProperty('secret');
    const list = await h.app.inject({ method: 'GET', url: '/v1/webhooks', headers: h.tenants.a.auth });
    expect(list.json().items.map((e: { id: string }) => e.id)).toContain(body.id);
    expect(JSON.stringify(list.json())).not.toContain('whsec_');
  });

  it.each([
    [{ url: 'http://ats.example.com/hooks', events: ['posting.matched'] }, 'url', 'must be an https URL'],
    [{ url: 'not a url', events: ['posting.matched'] }, 'url', 'must be an absolute URL'],
    [{ url: `https://ats.example.com/${'a'.repeat(2100)}`, events: ['posting.matched'] }, 'url', '2048'],
    [{ url: 'https://ats.example.com/', events: ['job.posted'] }, 'events', 'must be one of'],
    [{ url: 'https://ats.example.com/', events: [] }, 'events', 'at least one'],
    [
      { url: 'https://ats.example.com/', events: ['upload.ready'], description: 'x'.repeat(501) },
      'description',
      '',
    ],
    [{ events: ['upload.ready'] }, 'url', ''],
  ])('refuses %j with a problem naming %s', async (payload, field, message) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const error = res.json().errors.find((e: { field: string }) => e.field.startsWith(field));
    expect(error, JSON.stringify(res.json())).toBeDefined();
    expect(error.message).toContain(message);
  });

  it('holds at most 10 endpoints per tenant, even when created at once', async () => {
    const own = h.tenants.b.auth;
    const results = await Promise.all(
      Array.from({ length: 13 }, (_, i) =>
        create({ url: `https://b.example.com/${i}`, events: ['upload.failed'] }, own),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.json().code).toBe('ENDPOINT_LIMIT');
    // Deleting one makes room again.
    const list = (await h.app.inject({ method: 'GET', url: '/v1/webhooks', headers: own })).json();
    const del = await h.app.inject({
      method: 'DELETE',
      url: `/v1/webhooks/${list.items[0].id}`,
      headers: own,
    });
    expect(del.statusCode).toBe(204);
    expect(
      (await create({ url: 'https://b.example.com/again', events: ['upload.failed'] }, own)).statusCode,
    ).toBe(201);
  });
});

describe('one endpoint', () => {
  it("changes, rotates and deletes; another tenant's key finds nothing", async () => {
    const { id } = (await create({ url: 'https://ats.example.com/one', events: ['posting.closed'] })).json();
    const url = `/v1/webhooks/${id}`;
    const patched = await h.app.inject({
      method: 'PATCH',
      url,
      headers: h.tenants.a.auth,
      payload: { events: ['posting.closed', 'candidate.registered'], enabled: false },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      events: ['posting.closed', 'candidate.registered'],
      enabled: false,
    });
    const badPatch = await h.app.inject({
      method: 'PATCH',
      url,
      headers: h.tenants.a.auth,
      payload: { url: 'http://plain.example.com/' },
    });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().errors[0].field).toBe('url');

    const rotated = await h.app.inject({
      method: 'POST',
      url: `${url}/rotate-secret`,
      headers: h.tenants.a.auth,
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(Date.parse(rotated.json().previousSecretExpiresAt)).toBeGreaterThan(Date.now() + 23 * 3600_000);

    for (const [method, path] of [
      ['GET', url],
      ['PATCH', url],
      ['DELETE', url],
      ['POST', `${url}/rotate-secret`],
      ['POST', `${url}/test`],
      ['GET', `${url}/deliveries`],
    ] as const) {
      const res = await h.app.inject({
        method,
        url: path,
        headers: h.tenants.b.auth,
        ...(method === 'PATCH' ? { payload: { enabled: true } } : {}),
      });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    expect((await h.app.inject({ method: 'DELETE', url, headers: h.tenants.a.auth })).statusCode).toBe(204);
    expect((await h.app.inject({ method: 'GET', url, headers: h.tenants.a.auth })).statusCode).toBe(404);
  });

  it('answers 400 naming the id when it is not a UUID', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/webhooks/nope', headers: h.tenants.a.auth });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toContain('id');
  });
});
