import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import { waitFor } from '@hireflow/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveries } from '../src/modules/webhooks/deliveries.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../src/modules/webhooks/delivery-worker.ts';
import { type JobsHarness, startJobsHarness } from './harness.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

// Two delivery workers claiming from one table (delivery-worker.ts): one
// endpoint never has more than its 4 slots' requests in flight across both,
// every delivery is sent once, and each worker reuses its kept-alive
// connections instead of opening one per attempt.

const HOLD_MS = 150;
const EVENTS = 24;
let h: JobsHarness;
const workers: WebhookDelivery[] = [];
let receiver: Receiver;
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  h = await startJobsHarness('jobs-webhooks-claim', {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const log = pino({ level: 'silent' });
  workers.push(startWebhookDelivery(h.config, h.deps, log), startWebhookDelivery(h.config, h.deps, log));
  receiver = await startReceiver((_request, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(204).end();
    }, HOLD_MS);
  });
});
afterAll(async () => {
  for (const worker of workers) for (const closeable of worker.closeables) await closeable.close();
  await receiver?.close();
  await h?.close();
});

describe('claims from two workers', () => {
  it('keep one endpoint within its 4 slots, send each delivery once, on kept-alive connections', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: h.tenants.a.auth,
      payload: { url: `${receiver.url}/held`, events: ['upload.failed'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    // Made as the inbox makes them, in one transaction: all due at its commit, more than the slots.
    const ids: string[] = [];
    await h.deps.orm.em.fork().transactional(async (em) => {
      for (let i = 0; i < EVENTS; i++) {
        const event = createEvent(
          'media.failed.v1',
          { uploadId: randomUUID(), tenantId: h.tenants.a.tenantId, reason: 'corrupt' },
          { source: 'hireflow/media' },
        );
        ids.push(...(await createDeliveries(em, event)));
      }
    });
    expect(ids).toHaveLength(EVENTS);
    // The first worker is woken; the second finds them by its poll.
    await workers[0]!.queue.add(ids);
    await waitFor(() => receiver.received.length >= EVENTS, { timeoutMs: 60_000 });
    const delivered = await waitFor(async () => {
      const rows = await h.deps.orm.em
        .fork()
        .execute<{ n: string }[]>(
          "SELECT count(*) AS n FROM webhook_delivery WHERE status = 'delivered' AND leased_until IS NULL",
        );
      return Number(rows[0]!.n) === EVENTS ? EVENTS : undefined;
    });
    expect(delivered).toBe(EVENTS);
    const webhookIds = receiver.received.map((r) => String(r.headers['webhook-id']));
    // Each delivery sent once (its own webhook-id, the delivery's id), none twice.
    expect(webhookIds).toHaveLength(EVENTS);
    expect(new Set(webhookIds)).toEqual(new Set(ids.map((id) => `msg_${id}`)));
    expect(maxInFlight).toBe(4);
    // Each worker holds at most 4 connections to the endpoint (its slots): 24 requests on at most 8.
    expect(receiver.connections()).toBeLessThanOrEqual(8);
  }, 90_000);
});
