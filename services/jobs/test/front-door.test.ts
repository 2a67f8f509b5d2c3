import { randomBytes } from 'node:crypto';
import { buildApp } from '@hireflow/jobs';
import { loadConfig } from '@hireflow/jobs/config';
import { waitFor } from '@hireflow/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness, validPosting } from './harness.ts';

// The front door of the public API (docs/security.md): limits that hold
// before authentication and across API processes.

let h: JobsHarness;
/** A second API process of the same service (same Redis prefix and database). */
let other: FastifyInstance;
const urls: string[] = [];

beforeAll(async () => {
  h = await startJobsHarness('jobs-front-door', {
    FAILED_AUTH_MAX: '5',
    SSE_MAX_STREAMS_PER_KEY: '2',
    SSE_MAX_STREAM_MS: '1500',
  });
  other = await buildApp(loadConfig(h.env), h.deps);
  for (const app of [h.app, other]) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    urls.push(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  }
}, 60_000);

afterAll(async () => {
  await other?.close();
  await h?.close();
});

const randomKey = () => `hf_${randomBytes(32).toString('base64url')}`;

describe('API2 broken authentication / API4 resource consumption: failed credentials', () => {
  const unknownKey = () => ({ authorization: `Bearer ${randomKey()}` });

  it('answers 429 with Retry-After once an address sent too many unknown or missing keys, in every API process', async () => {
    const from = { remoteAddress: '198.51.100.7' };
    for (let i = 0; i < 5; i++) {
      const res = await h.app.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: i % 2 ? unknownKey() : {},
        ...from,
      });
      expect(res.statusCode).toBe(401);
    }
    const blocked = await h.app.inject({ method: 'GET', url: '/v1/jobs', headers: unknownKey(), ...from });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().code).toBe('TOO_MANY_FAILED_AUTHENTICATIONS');
    // The limit lives in Redis: the other API process limits the address too.
    const elsewhere = await other.inject({ method: 'GET', url: '/v1/jobs', ...from });
    expect(elsewhere.statusCode).toBe(429);
    // A spoofed X-Forwarded-For without TRUST_PROXY changes nothing: the socket's address counts.
    const spoofed = await h.app.inject({
      method: 'GET',
      url: '/v1/jobs',
      headers: { ...unknownKey(), 'x-forwarded-for': '203.0.113.9' },
      ...from,
    });
    expect(spoofed.statusCode).toBe(429);
    const elsewhereFine = await h.app.inject({
      method: 'GET',
      url: '/v1/jobs',
      ...from,
      remoteAddress: '198.51.100.8',
    });
    expect(elsewhereFine.statusCode).toBe(401);
  });

  it('API2: 30 bad keys from one address, then a valid key from the same address → 200 (no lockout of the innocent)', async () => {
    const from = { remoteAddress: '198.51.100.17' };
    for (let i = 0; i < 30; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/jobs', headers: unknownKey(), ...from });
      expect([401, 429]).toContain(res.statusCode);
    }
    const stillLimited = await h.app.inject({
      method: 'GET',
      url: '/v1/jobs',
      headers: unknownKey(),
      ...from,
    });
    expect(stillLimited.statusCode).toBe(429);
    // A key seen before (cached by this process), one never seen by the other process, and a new key: all pass.
    await h.app.inject({ method: 'GET', url: '/v1/jobs', headers: h.tenants.b.auth });
    for (const [app, auth] of [
      [h.app, h.tenants.b.auth],
      [other, h.tenants.b.auth],
      [h.app, h.tenants.a.auth],
    ] as const) {
      const valid = await app.inject({ method: 'GET', url: '/v1/jobs', headers: auth, ...from });
      expect(valid.statusCode).toBe(200);
      // Its own rate limit applies, nothing else.
      expect(valid.headers['x-ratelimit-limit']).toBeDefined();
    }
  });

  it('API2: counts failures per presented credential too: one unknown key tried from many addresses is refused (429)', async () => {
    const key = unknownKey();
    for (let i = 0; i < 5; i++) {
      const res = await h.app.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: key,
        remoteAddress: `198.51.100.${100 + i}`,
      });
      expect(res.statusCode).toBe(401);
    }
    const refused = await other.inject({
      method: 'GET',
      url: '/v1/jobs',
      headers: key,
      remoteAddress: '198.51.100.120',
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('TOO_MANY_FAILED_AUTHENTICATIONS');
  });

  it('API2: with TRUST_PROXY naming the proxies (a CIDR), a client rotating X-Forwarded-For is still limited', async () => {
    const behindProxy = await buildApp(loadConfig({ ...h.env, TRUST_PROXY: '10.0.0.0/8' }), h.deps);
    try {
      // The limiter fails open when Redis is slow (a loaded machine): send until refused, within bounds.
      const statuses: number[] = [];
      for (let i = 0; i < 30 && !statuses.includes(429); i++) {
        const res = await behindProxy.inject({
          method: 'GET',
          url: '/v1/jobs',
          // The client's own header first, then what the load balancer (10.x) appended: the real client.
          headers: { ...unknownKey(), 'x-forwarded-for': `203.0.113.${i + 1}, 198.51.100.40` },
          remoteAddress: `10.0.${i % 3}.9`,
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(5);
      // Another client behind the same proxy is not affected, and the limited one still gets in with a valid key.
      const neighbour = await behindProxy.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: { 'x-forwarded-for': '198.51.100.41' },
        remoteAddress: '10.0.0.9',
      });
      expect(neighbour.statusCode).toBe(401);
      const valid = await behindProxy.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: { ...h.tenants.a.auth, 'x-forwarded-for': '198.51.100.40' },
        remoteAddress: '10.0.0.9',
      });
      expect(valid.statusCode).toBe(200);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('API4 resource consumption: status streams', () => {
  async function open(base: string, postingId: string, auth: Record<string, string>) {
    const controller = new AbortController();
    const res = await fetch(`${base}/v1/jobs/${postingId}/events`, {
      headers: auth,
      signal: controller.signal,
    });
    return { res, close: () => controller.abort() };
  }

  it('caps the open streams of one key across API processes (429), and frees a slot when a stream ends', async () => {
    const posted = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: h.tenants.a.auth,
      payload: validPosting,
    });
    const postingId = posted.json().id as string;
    const auth = h.tenants.a.auth;
    const first = await open(urls[0]!, postingId, auth);
    const second = await open(urls[1]!, postingId, auth);
    expect([first.res.status, second.res.status]).toEqual([200, 200]);
    const third = await open(urls[0]!, postingId, auth);
    expect(third.res.status).toBe(429);
    expect(((await third.res.json()) as { code: string }).code).toBe('TOO_MANY_STREAMS');
    // Another key is not affected.
    const otherKey = await open(urls[1]!, postingId, h.tenants.b.auth);
    expect(otherKey.res.status).toBe(404); // tenant b cannot see tenant a's posting
    first.close();
    // The slot is released when the server sees the client go.
    const again = await waitFor(async () => {
      const attempt = await open(urls[1]!, postingId, auth);
      if (attempt.res.status === 200) return attempt;
      await attempt.res.body?.cancel();
      return undefined;
    });
    second.close();
    again.close();
  });

  it('ends a stream at its maximum life with a retry hint', async () => {
    const posted = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: h.tenants.b.auth,
      payload: validPosting,
    });
    const stream = await open(urls[0]!, posted.json().id, h.tenants.b.auth);
    expect(stream.res.status).toBe(200);
    const body = await stream.res.text(); // resolves when the server ends the stream
    expect(body).toMatch(/event: status/);
    expect(body.endsWith('retry: 3000\n\n')).toBe(true);
  });
});
