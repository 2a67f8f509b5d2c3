import { uniqueName } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, revokeApiKey } from '../src/modules/tenants/api-keys.ts';
import { type JobsHarness, startJobsHarness, validPosting } from './harness.ts';

// A revoked key (docs/security.md, API2): new requests are refused within the
// key cache's 10 s; a status stream opened before the revocation ends at its
// next keep-alive, with a last `event: revoked`.

let h: JobsHarness;
let base: string;

beforeAll(async () => {
  h = await startJobsHarness('jobs-revocation', { SSE_KEEP_ALIVE_MS: '1000' });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('API2 broken authentication: revocation and open status streams', () => {
  it('ends a status stream opened before its key was revoked at the next keep-alive, with a final revoked event', async () => {
    const issued = await issueApiKey(h.deps.orm.em.fork(), uniqueName('revoked'), 'revoked@example.test');
    const auth = { authorization: `Bearer ${issued.key}` };
    const posted = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: auth,
      payload: validPosting,
    });
    const postingId = posted.json().id as string;
    const res = await fetch(`${base}/v1/jobs/${postingId}/events`, { headers: auth });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let before = '';
    // Wait until the stream is past its first keep-alive: the key is rechecked while it lives.
    while (!before.includes(': keep-alive')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      before += decoder.decode(value, { stream: true });
    }
    expect(await revokeApiKey(h.deps.orm.em.fork(), issued.keyId)).toBe(true);
    let after = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      after += decoder.decode(value, { stream: true });
    }
    expect(before).toMatch(/event: status/);
    // Within one keep-alive interval: at most the keep-alive whose check ran before the revocation, then the end.
    expect(after.match(/: keep-alive/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(after).toMatch(
      /event: revoked\ndata: \{"jobId":"[^"]+","reason":"The API key was revoked"\}\n\n$/,
    );
    // This process refuses the key at once, without waiting for its cache entry to end.
    const again = await h.app.inject({ method: 'GET', url: '/v1/jobs', headers: auth });
    expect(again.statusCode).toBe(401);
  });

  it('keeps the stream of a key that stays active open across keep-alives', async () => {
    const posted = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: h.tenants.a.auth,
      payload: validPosting,
    });
    const controller = new AbortController();
    const res = await fetch(`${base}/v1/jobs/${posted.json().id}/events`, {
      headers: h.tenants.a.auth,
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/: keep-alive/g)?.length ?? 0) < 2) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += decoder.decode(value, { stream: true });
    }
    expect(text).not.toMatch(/revoked/);
    controller.abort();
  });
});
