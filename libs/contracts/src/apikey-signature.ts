// Events are not credentials (docs/security.md, API10): whoever can publish
// to a topic (or an emulator) could announce a key hash of their choosing. The
// `apikey.*` events carry an HMAC of their fields under APIKEY_EVENT_KEY, a
// secret the producer (jobs) and the consumer that authenticates with the
// keys (media) hold, and no publisher else; the consumer refuses an event
// whose signature is missing or wrong.
import { createHmac, timingSafeEqual } from 'node:crypto';

type ApiKeyEvent =
  | { type: 'apikey.issued.v1'; data: { keyId: string; tenantId: string; keyHash: string; issuedAt: string } }
  | { type: 'apikey.revoked.v1'; data: { keyId: string; tenantId: string; revokedAt: string } };

/** The signed text: the type and every field but the signature, one a line. */
function signedText(event: ApiKeyEvent): string {
  const fields =
    event.type === 'apikey.issued.v1'
      ? [event.data.keyId, event.data.tenantId, event.data.keyHash, event.data.issuedAt]
      : [event.data.keyId, event.data.tenantId, event.data.revokedAt];
  return [event.type, ...fields].join('\n');
}

/** The `signature` of an `apikey.*` event's data (43 base64url characters). */
export function signApiKeyEvent(key: string, event: ApiKeyEvent): string {
  return createHmac('sha256', key).update(signedText(event)).digest('base64url');
}

/** Whether the event's `signature` is the one `key` makes (compared in constant time). */
export function apiKeyEventSigned(
  key: string,
  event: ApiKeyEvent & { data: { signature?: string } },
): boolean {
  const given = event.data.signature;
  if (!given) return false;
  const expected = Buffer.from(signApiKeyEvent(key, event));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
