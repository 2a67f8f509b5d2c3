import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../src/webhook-receiver.ts';

// `pnpm start`'s webhook receiver over real HTTP: deliveries signed as
// Standard Webhooks signs them (the `standardwebhooks` package's own `sign`),
// verified with the secret handed over for their path; a bad signature shows
// as failed, on the page too.

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const traceUi = 'http://127.0.0.1:1/viewer';
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ port: 0, traceUiUrl: traceUi });
});
afterAll(() => receiver?.stop());

function signed(
  path: string,
  type: string,
  options: { key?: string; id?: string; traceparent?: string } = {},
) {
  const id = options.id ?? `msg_${randomUUID()}`;
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { n: 1 } });
  const at = new Date();
  return fetch(`${receiver.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(options.key ?? secret).sign(id, at, body),
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
    },
    body,
  });
}

const listed = async () =>
  (await (await fetch(`${receiver.url}/api/deliveries`)).json()) as ReceivedDelivery[];
const handOver = (path: string, key: string) =>
  fetch(`${receiver.url}/api/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path, secret: key }),
  });

describe('the local webhook receiver', () => {
  it('verifies a delivery with the secret of the path it came to, and links its trace', async () => {
    expect((await handOver('/in/ats', secret)).status).toBe(204);
    const traceId = randomBytes(16).toString('hex');
    const id = `msg_${randomUUID()}`;
    const response = await signed('/in/ats', 'posting.matched', {
      id,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(response.status).toBe(204);
    const delivery = (await listed()).find((d) => d.webhookId === id);
    expect(delivery).toMatchObject({
      path: '/in/ats',
      type: 'posting.matched',
      verified: true,
      verification: 'verified',
      copy: 1,
      traceId,
      traceUrl: `${traceUi}/trace/${traceId}`,
      body: { type: 'posting.matched', data: { n: 1 } },
    });
    // The same delivery again (a retry): counted as a copy of that webhook-id.
    await signed('/in/ats', 'posting.matched', { id });
    expect((await listed()).filter((d) => d.webhookId === id).map((d) => d.copy)).toEqual([1, 2]);
    const page = await (await fetch(`${receiver.url}/deliveries/${delivery!.seq}`)).text();
    expect(page).toContain(`${traceUi}/trace/${traceId}`);
    expect(page).toContain(id);
  });

  it('shows a bad signature as failed, on the list and on the page', async () => {
    await handOver('/in/strict', secret);
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    const id = `msg_${randomUUID()}`;
    expect((await signed('/in/strict', 'upload.ready', { id, key: other })).status).toBe(204);
    const delivery = (await listed()).find((d) => d.webhookId === id)!;
    expect(delivery.verified).toBe(false);
    expect(delivery.verification).toMatch(/^failed: /);
    expect(delivery.traceId).toBeUndefined();
    const page = await (await fetch(receiver.url)).text();
    expect(page).toContain(id);
    expect(page).toMatch(/class="bad">failed: /);
  });

  it('verifies what arrived before the secret once it is handed over', async () => {
    const path = `/in/early-${randomUUID()}`;
    const id = `msg_${randomUUID()}`;
    await signed(path, 'upload.ready', { id });
    expect((await listed()).find((d) => d.webhookId === id)).toMatchObject({
      verified: null,
      verification: `no secret for ${path}`,
    });
    await handOver(path, secret);
    expect((await listed()).find((d) => d.webhookId === id)?.verified).toBe(true);
  });

  it('refuses a hand-over without a path or a whsec_ secret', async () => {
    expect((await handOver('in/x', secret)).status).toBe(400);
    expect((await handOver('/api/endpoints', secret)).status).toBe(400);
    expect((await handOver('/in/x', 'not-a-secret')).status).toBe(400);
  });
});
