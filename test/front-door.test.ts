import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PublicApiHarness, startPublicApi } from './public-api-harness.ts';

// The front door across services (docs/security.md): jobs and media are two
// services with their own Redis prefixes, and a key still has one window.

let api: PublicApiHarness;

beforeAll(async () => {
  api = await startPublicApi('front-door', { env: { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '600000' } });
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe('API4 unrestricted resource consumption: one rate-limit window per key', () => {
  it("shares one key's limit between jobs and media (one Redis key), 429 from either once it is spent", async () => {
    const remaining: number[] = [];
    for (const url of [
      '/v1/jobs',
      '/v1/uploads/00000000-0000-4000-8000-000000000000',
      '/v1/jobs',
      '/v1/uploads/00000000-0000-4000-8000-000000000001',
    ]) {
      const res = await api.inject({ method: 'GET', url, headers: api.auth });
      expect(res.statusCode, url).not.toBe(429);
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    for (const url of ['/v1/jobs', '/v1/uploads/00000000-0000-4000-8000-000000000000']) {
      const res = await api.inject({ method: 'GET', url, headers: api.auth });
      expect(res.statusCode, url).toBe(429);
      expect(res.json().code).toBe('RATE_LIMITED');
    }
  });
});
