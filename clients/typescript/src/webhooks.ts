import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** A verified delivery's body (Standard Webhooks: `{ type, timestamp, data }`). */
export interface WebhookEvent<Data = Record<string, unknown>> {
  type: string;
  timestamp: string;
  data: Data;
}

/** Headers as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export { WebhookVerificationError };

/**
 * Verifies a Hireflow webhook delivery with the `standardwebhooks` package
 * and returns its body. `rawBody` is the body exactly as received (before
 * any JSON parsing); `secret` is the endpoint's `whsec_…`. Throws
 * `WebhookVerificationError` when no signature matches or the timestamp is
 * more than 5 minutes away. Deduplicate on the `webhook-id` header: every
 * retry of one delivery carries the same.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent<Data> {
  const read = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  };
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody);
  return new Webhook(secret).verify(body, {
    'webhook-id': read('webhook-id'),
    'webhook-timestamp': read('webhook-timestamp'),
    'webhook-signature': read('webhook-signature'),
  }) as WebhookEvent<Data>;
}
