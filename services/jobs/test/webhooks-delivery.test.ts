import { randomUUID } from 'node:crypto';
import { type AnyEvent, createEvent } from '@hireflow/contracts';
import { waitFor } from '@hireflow/testing';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingHandlers } from '../src/modules/inbox/consumers.ts';
import { StatusFeed } from '../src/modules/postings/status-feed.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../src/modules/webhooks/delivery-worker.ts';
import { type JobsHarness, startJobsHarness, type Tenant } from './harness.ts';
import { type Received, type Receiver, startReceiver } from './webhook-receiver.ts';

// Deliveries end to end against a real HTTP receiver on 127.0.0.1: the
// inbox's handlers create them (as the worker role's SQS consumer calls
// them), the delivery worker sends them, the receiver verifies them with the
// `standardwebhooks` package. Retries are fast here (base 50 ms, cap 200 ms).

let h: JobsHarness;
let feed: StatusFeed;
let delivery: WebhookDelivery;
let handlers: ReturnType<typeof postingHandlers>;
let receiver: Receiver;
/** What the receiver answers, by path: a list of statuses taken in turn (the last repeats). */
const script = new Map<string, { statuses: number[]; body?: string; location?: string }>();

beforeAll(async () => {
  h = await startJobsHarness('jobs-webhooks-delivery', {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_RETRY_CAP_MS: '200',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  const log = pino({ level: 'silent' });
  feed = new StatusFeed(h.deps.redis, h.config.REDIS_PREFIX);
  delivery = startWebhookDelivery(h.config, h.deps, log);
  handlers = postingHandlers(h.deps.orm, feed, log, {
    mediaPublicUrl: h.config.MEDIA_PUBLIC_URL,
    deliveries: delivery.queue,
  });
  receiver = await startReceiver((request, res) => {
    const plan = script.get(request.path) ?? { statuses: [204] };
    const seen = receiver.to(request.path).length;
    const status = plan.statuses[Math.min(seen - 1, plan.statuses.length - 1)]!;
    res.writeHead(status, plan.location ? { location: plan.location } : {}).end(plan.body ?? '');
  });
});
afterAll(async () => {
  for (const closeable of delivery?.closeables ?? []) await closeable.close();
  await receiver?.close();
  await feed?.close();
  await h?.close();
});

const context = { messageId: 'm', receiveCount: 1, queueName: 'q', attributes: {} };
async function deliver(event: AnyEvent) {
  const handler = handlers[event.type] as (e: AnyEvent, c: typeof context) => Promise<void>;
  await handler(event, context);
}

async function register(tenant: Tenant, path: string, events: string[]) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: tenant.auth,
    payload: { url: `${receiver.url}${path}`, events },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; secret: string }>();
}

const candidateRegistered = (tenant: Tenant) =>
  createEvent(
    'candidate.registered.v1',
    {
      candidateId: randomUUID(),
      tenantId: tenant.tenantId,
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      headline: 'Engineer',
      skills: ['node'],
      location: 'London',
    },
    { source: 'hireflow/jobs' },
  );

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

async function deliveryLog(tenant: Tenant, endpointId: string) {
  const res = await h.app.inject({
    method: 'GET',
    url: `/v1/webhooks/${endpointId}/deliveries`,
    headers: tenant.auth,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ items: { id: string; status: string; attempts: number; lastError: string | null }[] }>();
}

async function deliveryDetail(tenant: Tenant, endpointId: string, deliveryId: string) {
  const res = await h.app.inject({
    method: 'GET',
    url: `/v1/webhooks/${endpointId}/deliveries/${deliveryId}`,
    headers: tenant.auth,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{
    status: string;
    webhookId: string;
    attemptLog: {
      statusCode: number | null;
      latencyMs: number;
      responseBody: string;
      error: string | null;
    }[];
  }>();
}

describe('a delivery', () => {
  it("reaches its tenant's subscribed endpoint once, signed so that standardwebhooks verifies it", async () => {
    const a = h.tenants.a;
    const subscribed = await register(a, '/a-candidates', ['candidate.registered']);
    await register(a, '/a-other', ['upload.ready']);
    await register(h.tenants.b, '/b-candidates', ['candidate.registered']);
    const event = candidateRegistered(a);
    // The same event three times (SQS redelivers): one delivery.
    await deliver(event);
    await deliver(event);
    await deliver(event);
    const [got] = await waitFor(
      () => receiver.to('/a-candidates').length > 0 && receiver.to('/a-candidates'),
    );
    const verified = new Webhook(subscribed.secret).verify(got!.body, headersOf(got!)) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    expect(verified).toEqual({
      type: 'candidate.registered',
      timestamp: event.time,
      data: { candidateId: event.data.candidateId, registeredAt: event.time },
    });
    // No personal data: the payload carries ids and public fields only.
    expect(got!.body).not.toContain('ada@example.test');
    expect(got!.body).not.toContain('Lovelace');
    // Another secret does not verify it.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(got!.body, headersOf(got!)),
    ).toThrow();

    await waitFor(async () => (await deliveryLog(a, subscribed.id)).items[0]?.status === 'delivered');
    const log = await deliveryLog(a, subscribed.id);
    expect(log.items).toHaveLength(1);
    expect(receiver.to('/a-candidates')).toHaveLength(1);
    expect(receiver.to('/a-other')).toHaveLength(0);
    expect(receiver.to('/b-candidates')).toHaveLength(0);
  });

  it('a receiver failing 3 times then answering 200: delivered, 4 attempts logged, the same webhook-id each time', async () => {
    const a = h.tenants.a;
    script.set('/flaky', { statuses: [500, 503, 429, 200], body: 'x'.repeat(3000) });
    const endpoint = await register(a, '/flaky', ['posting.closed']);
    const jobId = randomUUID();
    await deliver(
      createEvent(
        'job.closed.v1',
        { jobId, tenantId: a.tenantId, closedAt: new Date().toISOString() },
        { source: 'hireflow/jobs' },
      ),
    );
    const [entry] = await waitFor(async () => {
      const log = await deliveryLog(a, endpoint.id);
      return log.items[0]?.status === 'delivered' && log.items;
    });
    expect(entry!.attempts).toBe(4);
    const requests = receiver.to('/flaky');
    expect(requests).toHaveLength(4);
    const ids = new Set(requests.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const request of requests) new Webhook(endpoint.secret).verify(request.body, headersOf(request));
    const detail = await deliveryDetail(a, endpoint.id, entry!.id);
    expect(detail.webhookId).toBe([...ids][0]);
    expect(detail.attemptLog.map((attempt) => attempt.statusCode)).toEqual([500, 503, 429, 200]);
    for (const attempt of detail.attemptLog) {
      expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
      expect(attempt.responseBody).toHaveLength(1024);
    }
  });

  it('410 Gone disables the endpoint at once and announces it (webhook.endpoint.disabled.v1)', async () => {
    const a = h.tenants.a;
    script.set('/gone', { statuses: [410] });
    const endpoint = await register(a, '/gone', ['upload.failed']);
    const failed = (reason: string) =>
      createEvent(
        'media.failed.v1',
        { uploadId: randomUUID(), tenantId: a.tenantId, reason },
        { source: 'hireflow/media' },
      );
    await deliver(failed('corrupt image'));
    await waitFor(async () => {
      const res = await h.app.inject({ method: 'GET', url: `/v1/webhooks/${endpoint.id}`, headers: a.auth });
      return res.json().enabled === false && res.json();
    });
    const got = await h.app.inject({ method: 'GET', url: `/v1/webhooks/${endpoint.id}`, headers: a.auth });
    expect(got.json().disabledReason).toContain('410');
    expect((await deliveryLog(a, endpoint.id)).items[0]).toMatchObject({ status: 'failed', attempts: 1 });
    const announced = await h.deps.orm.em
      .fork()
      .execute<{ payload: { data: Record<string, unknown> } }[]>(
        "SELECT payload FROM outbox WHERE type = 'webhook.endpoint.disabled.v1' AND payload->'data'->>'endpointId' = ?",
        [endpoint.id],
      );
    expect(announced).toHaveLength(1);
    expect(announced[0]!.payload.data).toMatchObject({
      tenantId: a.tenantId,
      contactEmail: expect.stringContaining('@example.test'),
      host: new URL(receiver.url).host,
    });
    // A disabled endpoint gets nothing more.
    await deliver(failed('another'));
    expect(receiver.to('/gone')).toHaveLength(1);
  });

  it('an endpoint failing for the whole retry window (3 days) is disabled and announced', async () => {
    const a = h.tenants.a;
    script.set('/dead', { statuses: [500] });
    const endpoint = await register(a, '/dead', ['candidate.registered']);
    // Its streak of failures began four days ago.
    await h.deps.orm.em
      .fork()
      .execute(
        "UPDATE webhook_endpoint SET consecutive_failures = 1, failing_since = now() - interval '4 days' WHERE id = ?",
        [endpoint.id],
      );
    await deliver(candidateRegistered(a));
    const disabled = await waitFor(async () => {
      const res = await h.app.inject({ method: 'GET', url: `/v1/webhooks/${endpoint.id}`, headers: a.auth });
      return res.json().enabled === false && res.json();
    });
    expect(disabled.disabledReason).toContain('three days');
    const announced = await h.deps.orm.em
      .fork()
      .execute(
        "SELECT 1 FROM outbox WHERE type = 'webhook.endpoint.disabled.v1' AND payload->'data'->>'endpointId' = ?",
        [endpoint.id],
      );
    expect(announced).toHaveLength(1);
    // Enabling it again clears the streak.
    const enabled = await h.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${endpoint.id}`,
      headers: a.auth,
      payload: { enabled: true },
    });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null });
    await h.app.inject({ method: 'DELETE', url: `/v1/webhooks/${endpoint.id}`, headers: a.auth });
  });

  it('follows no redirect: a 302 is a failed attempt, its Location is never fetched', async () => {
    const a = h.tenants.a;
    script.set('/moved', { statuses: [302], location: `${receiver.url}/elsewhere` });
    const endpoint = await register(a, '/moved', ['candidate.registered']);
    await deliver(candidateRegistered(a));
    await waitFor(() => receiver.to('/moved').length >= 2);
    const [entry] = (await deliveryLog(a, endpoint.id)).items;
    const detail = await deliveryDetail(a, endpoint.id, entry!.id);
    expect(detail.attemptLog[0]!.statusCode).toBe(302);
    expect(receiver.to('/elsewhere')).toHaveLength(0);
    await h.app.inject({ method: 'DELETE', url: `/v1/webhooks/${endpoint.id}`, headers: a.auth });
  });
});

describe('rotation, test deliveries and retries on request', () => {
  it('signs with both secrets during the grace period; each verifies with standardwebhooks', async () => {
    const a = h.tenants.a;
    const endpoint = await register(a, '/rotating', ['posting.matched']);
    const rotated = await h.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/rotate-secret`,
      headers: a.auth,
    });
    const { secret } = rotated.json<{ secret: string }>();
    const test = await h.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/test`,
      headers: a.auth,
    });
    expect(test.statusCode, test.body).toBe(202);
    const [got] = await waitFor(() => receiver.to('/rotating').length > 0 && receiver.to('/rotating'));
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(got!.body, headersOf(got!))).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(endpoint.secret).verify(got!.body, headersOf(got!))).toMatchObject({
      type: 'webhook.test',
    });
  });

  it('POST …/retry sends a delivered delivery again, with the same webhook-id', async () => {
    const a = h.tenants.a;
    const endpoint = await register(a, '/again', ['posting.matched']);
    const { deliveryId } = (
      await h.app.inject({ method: 'POST', url: `/v1/webhooks/${endpoint.id}/test`, headers: a.auth })
    ).json<{ deliveryId: string }>();
    await waitFor(async () => (await deliveryDetail(a, endpoint.id, deliveryId)).status === 'delivered');
    const retry = await h.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/deliveries/${deliveryId}/retry`,
      headers: a.auth,
    });
    expect(retry.statusCode, retry.body).toBe(202);
    await waitFor(() => receiver.to('/again').length === 2);
    await waitFor(async () => (await deliveryDetail(a, endpoint.id, deliveryId)).attemptLog.length === 2);
    const [first, second] = receiver.to('/again');
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const other = await h.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/deliveries/${deliveryId}/retry`,
      headers: h.tenants.b.auth,
    });
    expect(other.statusCode).toBe(404);
  });
});
