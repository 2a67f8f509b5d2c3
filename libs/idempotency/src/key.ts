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
