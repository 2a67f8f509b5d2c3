import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness } from './harness.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

// A worker killed in the middle of a delivery: the delivery completes after
// another worker process starts, and the receiver sees the same webhook-id
// (BullMQ's stalled check hands the task over; the row says it is pending).

const root = resolve(import.meta.dirname, '../../..');
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  // The lock and stalled check follow the timeout (timeout + 5 s): a dead worker's task moves within ~20 s.
  WEBHOOK_TIMEOUT_MS: '5000',
};
let h: JobsHarness;
let receiver: Receiver;
const children = new Set<ChildProcess>();

async function startWorker(): Promise<{ child: ChildProcess; exit: Promise<unknown> }> {
  const child = spawn(process.execPath, [join(root, 'services/jobs/src/main.ts')], {
    env: { ...process.env, ...h.env, ...WEBHOOK_ENV, ROLE: 'worker', PORT: '0', OTEL_SDK_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  const exit = new Promise((res) => child.once('exit', (code, signal) => res(code ?? signal)));
  await new Promise<void>((res, rej) => {
    child.on('message', (m: { type?: string }) => m.type === 'started' && res());
    exit.then((code) => rej(new Error(`worker exited with ${code} during start`)));
  });
  return { child, exit };
}

beforeAll(async () => {
  h = await startJobsHarness('jobs-webhooks-kill', WEBHOOK_ENV);
  // The first request is never answered (its worker dies holding it); later ones get 204.
  receiver = await startReceiver((_request, res) => {
    if (receiver.received.length > 1) res.writeHead(204).end();
  });
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await receiver?.close();
  await h?.close();
});

describe('a worker killed mid-delivery', () => {
  it('the delivery completes after a new worker starts, with the same webhook-id', async () => {
    const first = await startWorker();
    const created = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: h.tenants.a.auth,
      payload: { url: `${receiver.url}/hook`, events: ['posting.matched'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    const test = await h.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/test`,
      headers: h.tenants.a.auth,
    });
    const { deliveryId } = test.json<{ deliveryId: string }>();

    // The worker is sending: kill it before its attempt ends.
    await waitFor(() => receiver.received.length === 1, { timeoutMs: 30_000 });
    first.child.kill('SIGKILL');
    await first.exit;

    await startWorker();
    await waitFor(() => receiver.received.length >= 2, { timeoutMs: 90_000 });
    const detail = await waitFor(
      async () => {
        const res = await h.app.inject({
          method: 'GET',
          url: `/v1/webhooks/${id}/deliveries/${deliveryId}`,
          headers: h.tenants.a.auth,
        });
        return res.json().status === 'delivered' && res.json();
      },
      { timeoutMs: 30_000 },
    );
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toBe(detail.webhookId);
    // The killed attempt left no record; the one that completed it did.
    expect(detail.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([204]);
  }, 180_000);
});
