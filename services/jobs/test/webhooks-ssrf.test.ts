import { randomUUID } from 'node:crypto';
import { ConfigError } from '@hireflow/config';
import { createEvent } from '@hireflow/contracts';
import { startLocalServer, waitFor } from '@hireflow/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { postingHandlers } from '../src/modules/inbox/consumers.ts';
import { StatusFeed } from '../src/modules/postings/status-feed.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../src/modules/webhooks/delivery-worker.ts';
import { MAX_RESPONSE_BYTES, sendWebhook } from '../src/modules/webhooks/sender.ts';
import { type JobsHarness, startJobsHarness } from './harness.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

// Where deliveries may not go (docs/webhooks.md, "Addresses"): with
// WEBHOOK_ALLOW_PRIVATE unset, a receiver on this machine is refused however
// its URL names it, and the refusal is in the delivery log with its reason.

let h: JobsHarness;
let feed: StatusFeed;
let delivery: WebhookDelivery;
let handlers: ReturnType<typeof postingHandlers>;
let receiver: Receiver;

beforeAll(async () => {
  // http allowed (no TLS receiver here), private addresses not.
  h = await startJobsHarness('jobs-webhooks-ssrf', {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  const log = pino({ level: 'silent' });
  feed = new StatusFeed(h.deps.redis, h.config.REDIS_PREFIX);
  delivery = startWebhookDelivery(h.config, h.deps, log);
  handlers = postingHandlers(h.deps.orm, feed, log, {
    mediaPublicUrl: h.config.MEDIA_PUBLIC_URL,
    deliveries: delivery.queue,
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const closeable of delivery?.closeables ?? []) await closeable.close();
  await receiver?.close();
  await feed?.close();
  await h?.close();
});

describe('refused addresses', () => {
  const port = () => new URL(receiver.url).port;
  it.each([
    ['loopback', () => `http://127.0.0.1:${port()}/hook`, 'loopback'],
    ['a DNS name resolving to 127.0.0.1', () => `http://localhost:${port()}/hook`, 'loopback'],
    ['IPv6 loopback', () => `http://[::1]:${port()}/hook`, 'loopback'],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/hook`, 'loopback'],
    ['private', () => 'http://10.0.0.1/hook', 'private'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['link-local', () => 'http://169.254.10.10/hook', 'link-local'],
    ['unique-local', () => 'http://[fd00::1]/hook', 'unique-local'],
  ])('%s: never connected to, logged as refused (%s)', async (_name, url, reason) => {
    const a = h.tenants.a;
    const created = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: a.auth,
      payload: { url: url(), events: ['upload.failed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    const before = receiver.received.length;
    await (handlers['media.failed.v1'] as (e: unknown, c: unknown) => Promise<void>)(
      createEvent(
        'media.failed.v1',
        { uploadId: randomUUID(), tenantId: a.tenantId, reason: 'corrupt' },
        { source: 'hireflow/media' },
      ),
      { messageId: 'm', receiveCount: 1, queueName: 'q', attributes: {} },
    );
    const entry = await waitFor(async () => {
      const log = await h.app.inject({
        method: 'GET',
        url: `/v1/webhooks/${id}/deliveries`,
        headers: a.auth,
      });
      const first = log.json().items[0];
      return first?.status === 'failed' && first;
    });
    expect(entry.lastError).toBe(`refused: address refused: ${reason}`);
    expect(entry.attempts).toBe(1);
    expect(receiver.received.length).toBe(before);
    await h.app.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, headers: a.auth });
  });
});

describe('the sender', () => {
  it('reads at most 64 KiB of an answer and returns, however long the body goes on', async () => {
    let written = 0;
    const endless = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (written < 50 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
      };
      res.on('drain', pump);
      pump();
    });
    try {
      const result = await sendWebhook(`${endless.url}/`, {}, '{}', {
        allowHttp: true,
        allowPrivate: true,
        timeoutMs: 10_000,
      });
      expect(result.statusCode).toBe(200);
      expect(result.body).toHaveLength(1024);
      expect(written).toBeLessThan(50 * 1024 * 1024);
      expect(MAX_RESPONSE_BYTES).toBe(65_536);
    } finally {
      await endless.close();
    }
  });

  it('gives up on an endpoint that never answers, after its timeout', async () => {
    const silent = await startLocalServer(() => undefined);
    try {
      await expect(
        sendWebhook(`${silent.url}/`, {}, '{}', {
          allowHttp: true,
          allowPrivate: true,
          timeoutMs: 300,
        }),
      ).rejects.toThrow(/timed out after 300 ms/);
    } finally {
      await silent.close();
    }
  });

  it('refuses an http URL unless WEBHOOK_ALLOW_HTTP, before connecting', async () => {
    await expect(
      sendWebhook(`${receiver.url}/plain`, {}, '{}', {
        allowHttp: false,
        allowPrivate: true,
        timeoutMs: 1000,
      }),
    ).rejects.toThrow('url must be an https URL');
    expect(receiver.to('/plain')).toHaveLength(0);
  });
});

describe('configuration', () => {
  it('refuses WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE with NODE_ENV=production', () => {
    const production = {
      ...h.env,
      NODE_ENV: 'production',
      ADMIN_TOKEN: 'x'.repeat(32),
      // Required in production (PUBLIC_API_SECRETS): without it the config fails for that, not the flags.
      APIKEY_EVENT_KEY: 'k'.repeat(32),
      MEDIA_PUBLIC_URL: 'https://media.example.com',
      WEBHOOK_ALLOW_HTTP: 'false',
    };
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_HTTP: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE/,
    );
    expect(loadConfig(production).WEBHOOK_ALLOW_PRIVATE).toBe(false);
  });
});
