import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import { createMetrics, type ServiceMetrics } from '@hireflow/runtime';
import { metricValue, waitFor } from '@hireflow/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingHandlers } from '../src/modules/inbox/consumers.ts';
import { StatusFeed } from '../src/modules/postings/status-feed.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../src/modules/webhooks/delivery-worker.ts';
import { type JobsHarness, startJobsHarness } from './harness.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

// One slow or failing endpoint never delays another: each endpoint has its
// own slots (4) and its own circuit, and a claim takes only deliveries whose
// endpoint has a free slot, so the others' go on.

const HANG_MS = 10_000;
let h: JobsHarness;
let feed: StatusFeed;
let delivery: WebhookDelivery;
let handlers: ReturnType<typeof postingHandlers>;
let receiver: Receiver;
let metrics: ServiceMetrics;
let slowInFlight = 0;
let slowMaxInFlight = 0;
let firstSlowAnswerAt = Number.POSITIVE_INFINITY;

beforeAll(async () => {
  h = await startJobsHarness('jobs-webhooks-isolation', {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: String(HANG_MS + 5000),
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_RETRY_CAP_MS: '100',
  });
  metrics = createMetrics('jobs');
  const log = pino({ level: 'silent' });
  feed = new StatusFeed(h.deps.redis, h.config.REDIS_PREFIX);
  delivery = startWebhookDelivery(h.config, h.deps, log);
  handlers = postingHandlers(h.deps.orm, feed, log, {
    mediaPublicUrl: h.config.MEDIA_PUBLIC_URL,
    deliveries: delivery.queue,
  });
  receiver = await startReceiver((request, res) => {
    if (request.path === '/slow') {
      slowInFlight++;
      slowMaxInFlight = Math.max(slowMaxInFlight, slowInFlight);
      setTimeout(() => {
        slowInFlight--;
        firstSlowAnswerAt = Math.min(firstSlowAnswerAt, Date.now());
        res.writeHead(200).end();
      }, HANG_MS);
      return;
    }
    res.writeHead(request.path === '/down' ? 500 : 204).end();
  });
});
afterAll(async () => {
  await receiver?.close();
  for (const closeable of delivery?.closeables ?? []) await closeable.close();
  metrics?.close();
  await feed?.close();
  await h?.close();
});

async function register(path: string, tenant = h.tenants.a) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: tenant.auth,
    payload: { url: `${receiver.url}${path}`, events: ['upload.failed'] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

async function uploadFailed(tenant = h.tenants.a) {
  const event = createEvent(
    'media.failed.v1',
    { uploadId: randomUUID(), tenantId: tenant.tenantId, reason: 'corrupt' },
    { source: 'hireflow/media' },
  );
  await (handlers['media.failed.v1'] as (e: unknown, c: unknown) => Promise<void>)(event, {
    messageId: 'm',
    receiveCount: 1,
    queueName: 'q',
    attributes: {},
  });
  return Date.now();
}

describe('isolation', () => {
  it('an endpoint that hangs 10 s per request does not delay a fast one beside it', async () => {
    await register('/slow');
    await register('/fast');
    const events = 12;
    const sentAt: number[] = [];
    for (let i = 0; i < events; i++) sentAt.push(await uploadFailed());
    await waitFor(() => receiver.to('/fast').length === events, { timeoutMs: 60_000 });
    // Every fast delivery arrived while the slow endpoint had not answered once.
    const fast = receiver.to('/fast');
    expect(Math.max(...fast.map((r) => r.at))).toBeLessThan(firstSlowAnswerAt);
    const latencies = fast.map((r, i) => r.at - sentAt[i]!).sort((x, y) => x - y);
    console.log(
      `fast endpoint beside a hanging one: event → receiver p50 ${latencies[events / 2]} ms, max ${latencies.at(-1)} ms`,
    );
    // The slow endpoint never had more than its 4 slots' requests at once.
    await waitFor(() => slowInFlight === 4, { timeoutMs: 30_000 });
    expect(slowMaxInFlight).toBe(4);
    // Counted once the sender read the answer, a moment after the receiver saw the request.
    await waitFor(
      async () => {
        const text = await metrics.text();
        return (
          (metricValue(text, 'hireflow_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0) >= events &&
          (metricValue(text, 'hireflow_webhook_attempt_duration_seconds_count', { outcome: 'delivered' }) ??
            0) >= events
        );
      },
      { timeoutMs: 10_000, message: 'every fast delivery counted in the metrics' },
    );
  }, 120_000);

  it("opens a failing endpoint's circuit after 5 consecutive failures: no attempt until it half-opens", async () => {
    const id = await register('/down', h.tenants.b);
    for (let i = 0; i < 10; i++) await uploadFailed(h.tenants.b);
    const opened = await waitFor(async () => {
      const rows = await h.deps.orm.em
        .fork()
        .execute<{ circuit_open_until: string | null }[]>(
          'SELECT circuit_open_until FROM webhook_endpoint WHERE id = ?',
          [id],
        );
      return rows[0]?.circuit_open_until ? new Date(rows[0].circuit_open_until) : undefined;
    });
    const atOpen = receiver.to('/down').length;
    // The 5th failure opens it; at most the slots' other 3 were already on their way.
    expect(atOpen).toBeGreaterThanOrEqual(5);
    expect(atOpen).toBeLessThanOrEqual(8);
    // The next request is the probe, after the circuit's open time.
    await waitFor(() => receiver.to('/down').length > atOpen, { timeoutMs: 60_000 });
    expect(receiver.to('/down')[atOpen]!.at).toBeGreaterThanOrEqual(opened.getTime() - 50);
  }, 120_000);
});
