import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com): secrets, headers and
// signatures. Receivers verify with the `standardwebhooks` package unchanged.

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 24 random bytes in base64 (the spec's format). */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the secret's key bytes. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three headers of one attempt. The id is the delivery's (the same on
 * every retry); the timestamp is the attempt's; during a rotation's grace
 * both secrets sign, space separated, the new one first.
 */
export function webhookHeaders(
  deliveryId: string,
  body: string,
  secrets: string[],
  now: Date = new Date(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const id = webhookId(deliveryId);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}

/** The `webhook-id` of a delivery: stable across its retries, so a receiver deduplicates on it. */
export function webhookId(deliveryId: string): string {
  return `msg_${deliveryId}`;
}
