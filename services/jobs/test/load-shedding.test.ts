import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness } from './harness.ts';

let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-shed', { LOAD_SHED_EVENT_LOOP_DELAY_MS: '50' });
});
afterAll(async () => {
  await h?.close();
});

function blockEventLoop(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // a saturated process: the event loop cannot turn
  }
}

describe('load shedding', () => {
  it('answers 503 problem+json with Retry-After while the event loop is saturated, and recovers', async () => {
    const deadline = Date.now() + 15_000;
    let shed: Awaited<ReturnType<typeof h.app.inject>> | undefined;
    while (!shed && Date.now() < deadline) {
      blockEventLoop(250);
      const res = await h.app.inject({ method: 'GET', url: '/v1/jobs', headers: h.tenants.a.auth });
      if (res.statusCode === 503) shed = res;
      else expect(res.statusCode).toBe(200);
    }
    expect(shed, 'no request was shed within 15 s of a blocked event loop').toBeDefined();
    expect(shed!.headers['retry-after']).toBe('5');
    expect(shed!.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(shed!.json()).toMatchObject({ status: 503, code: 'OVERLOADED' });

    let recovered = false;
    while (!recovered && Date.now() < deadline + 15_000) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/jobs', headers: h.tenants.a.auth });
      recovered = res.statusCode === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(recovered).toBe(true);
  });
});
