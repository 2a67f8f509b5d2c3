import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { waitFor } from '@hireflow/testing';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingHandlers } from '../src/modules/inbox/consumers.ts';
import { StatusFeed } from '../src/modules/postings/status-feed.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../src/modules/webhooks/delivery-worker.ts';
import { type JobsHarness, startJobsHarness } from './harness.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

// Each attempt is one span in the trace of the event that made the delivery,
// and no span carries the secret, the payload or the URL's path.

let tracing: ReturnType<typeof startTestTracing>;
let h: JobsHarness;
let feed: StatusFeed;
let delivery: WebhookDelivery;
let handlers: ReturnType<typeof postingHandlers>;
let receiver: Receiver;

beforeAll(async () => {
  tracing = startTestTracing();
  h = await startJobsHarness('jobs-webhooks-trace', {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_RETRY_CAP_MS: '100',
  });
  const log = pino({ level: 'silent' });
  feed = new StatusFeed(h.deps.redis, h.config.REDIS_PREFIX);
  delivery = startWebhookDelivery(h.config, h.deps, log);
  handlers = postingHandlers(h.deps.orm, feed, log, {
    mediaPublicUrl: h.config.MEDIA_PUBLIC_URL,
    deliveries: delivery.queue,
  });
  // The first attempt fails, the second succeeds: two attempt spans.
  receiver = await startReceiver(
    (_r, res) => void res.writeHead(receiver.received.length === 1 ? 500 : 204).end(),
  );
});
afterAll(async () => {
  for (const closeable of delivery?.closeables ?? []) await closeable.close();
  await receiver?.close();
  await feed?.close();
  await h?.close();
  await tracing?.stop();
});

describe('tracing', () => {
  it("one span per attempt, in the event's trace, without secret, payload or path", async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: h.tenants.a.auth,
      payload: { url: `${receiver.url}/secret-path-token`, events: ['upload.failed'] },
    });
    const { secret } = created.json<{ secret: string }>();
    const reason = `unreadable-${randomUUID()}`;
    const event = createEvent(
      'media.failed.v1',
      { uploadId: randomUUID(), tenantId: h.tenants.a.tenantId, reason },
      { source: 'hireflow/media' },
    );
    // The consumer's process span of the event, as the SQS consumer opens it.
    const traceId = await trace.getTracer('test').startActiveSpan('process jobs-inbox', async (span) => {
      await (handlers['media.failed.v1'] as (e: unknown, c: unknown) => Promise<void>)(event, {
        messageId: 'm',
        receiveCount: 1,
        queueName: 'q',
        attributes: {},
      });
      span.end();
      return span.spanContext().traceId;
    });
    const attempts = () => tracing.exporter.getFinishedSpans().filter((s) => s.name === 'webhook attempt');
    await waitFor(() => attempts().length === 2, { timeoutMs: 20_000 });
    for (const span of attempts()) expect(span.spanContext().traceId).toBe(traceId);
    expect(attempts().map((s) => s.attributes['http.response.status_code'])).toEqual([500, 204]);
    expect(attempts().map((s) => s.attributes['webhook.attempt'])).toEqual([1, 2]);
    // Each request carries its attempt's traceparent (the receiver can link or quote the trace).
    expect(receiver.received.map((r) => r.headers.traceparent)).toEqual(
      attempts().map((s) => `00-${traceId}-${s.spanContext().spanId}-01`),
    );
    const everything = JSON.stringify(
      tracing.exporter
        .getFinishedSpans()
        .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })),
    );
    expect(everything).not.toContain(secret.slice(6));
    expect(everything).not.toContain(reason);
    expect(everything).not.toContain('secret-path-token');
  });
});
