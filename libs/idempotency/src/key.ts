import { createHash } from 'node:crypto';

export type KeyPart = string | number | bigint;

/**
 * An intent key: `idempotencyKey('welcome-email', candidateId)` →
 * `welcome-email:<candidateId>`. A key names the action, never the attempt.
 * `%` and `:` inside a part are percent-encoded so that distinct part lists
 * can never produce the same key (`('a', 'b:c')` vs `('a', 'b', 'c')`).
 */
export function idempotencyKey(intent: string, ...parts: KeyPart[]): string {
  if (!INTENT.test(intent)) {
    throw new TypeError(`idempotency key intent must match ${INTENT}, got ${JSON.stringify(intent)}`);
  }
  if (parts.length === 0) throw new TypeError(`idempotency key ${intent} needs at least one part`);
  return [intent, ...parts.map((part, i) => encodePart(intent, part, i))].join(':');
}

const INTENT = /^[a-z0-9][a-z0-9._-]*$/i;

function encodePart(intent: string, part: KeyPart, index: number): string {
  if (typeof part === 'number' && !Number.isFinite(part)) {
    throw new TypeError(`idempotency key ${intent}: part ${index} is not a finite number (${part})`);
  }
  const text = String(part);
  if (text.trim() === '') throw new TypeError(`idempotency key ${intent}: part ${index} is empty`);
  return text.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/**
 * A UUID (version 8, name-based) derived from a key: the same key, the same
 * id. An entity whose id derives from its intent (a posting from its
 * Idempotency-Key, an event from the fact it announces) is made once however
 * often the intent is retried.
 */
export function idFromKey(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
