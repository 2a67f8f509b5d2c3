import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createEvent } from '@hireflow/contracts';
import { SnsPublisher } from '@hireflow/messaging';
import { createSnsClient } from '@hireflow/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness, validPosting } from './harness.ts';

const root = resolve(import.meta.dirname, '../../..');
let h: JobsHarness;
let worker: ChildProcess;
let workerExit: Promise<number | null>;
let base: string;

beforeAll(async () => {
  h = await startJobsHarness('jobs-sse');
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // The worker role in a process of its own, as in production.
  worker = spawn(process.execPath, [join(root, 'services/jobs/src/main.ts')], {
    env: { ...process.env, ...h.env, ROLE: 'worker', PORT: '0', OTEL_SDK_DISABLED: 'true' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  workerExit = new Promise((res) => worker.once('exit', (code) => res(code)));
  await new Promise<void>((res, rej) => {
    worker.on('message', (m: { type?: string }) => m.type === 'started' && res());
    workerExit.then((code) => rej(new Error(`worker exited with ${code} during start`)));
  });
}, 60_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGKILL');
    await workerExit;
  }
  await h?.close();
});

/** Reads SSE `data:` payloads from a streaming response. */
async function* sseEvents(res: Response): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      if (data) yield JSON.parse(data.slice(6));
      end = buffer.indexOf('\n\n');
    }
  }
}

describe('GET /v1/jobs/:id/events (SSE)', () => {
  it('streams the matched status that a separate worker process applies from job.matched.v1', async () => {
    const posted = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: h.tenants.a.auth,
      payload: validPosting,
    });
    const postingId = posted.json().id;

    const abort = new AbortController();
    const res = await fetch(`${base}/v1/jobs/${postingId}/events`, {
      headers: h.tenants.a.auth,
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseEvents(res);
    expect((await events.next()).value).toEqual({ jobId: postingId, status: 'processing', matchCount: null });

    // matching publishes job.matched.v1 on its topic; SNS fans it out to jobs-inbox.
    const sns = createSnsClient({
      region: 'eu-west-1',
      endpoint: h.env.AWS_ENDPOINT_URL,
      dummyCredentials: true,
    });
    try {
      await new SnsPublisher(sns).publish(
        h.topology.topics['matching-events']!.arn,
        createEvent(
          'job.matched.v1',
          {
            jobId: postingId,
            tenantId: h.tenants.a.tenantId,
            matchCount: 2,
            computedAt: new Date().toISOString(),
          },
          { source: 'hireflow/matching', subject: postingId },
        ),
      );
    } finally {
      sns.destroy();
    }
    const next = await Promise.race([
      events.next(),
      new Promise<never>((_, rej) =>
        setTimeout(() => rej(new Error('no matched event within 20 s')), 20_000),
      ),
    ]);
    expect(next.value).toEqual({ jobId: postingId, status: 'matched', matchCount: 2 });
    abort.abort();

    const got = await h.app.inject({
      method: 'GET',
      url: `/v1/jobs/${postingId}`,
      headers: h.tenants.a.auth,
    });
    expect(got.json()).toMatchObject({ status: 'matched', matchCount: 2 });

    worker.kill('SIGTERM');
    expect(await workerExit).toBe(0);
  }, 60_000);
});
