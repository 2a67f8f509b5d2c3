import { createHash } from 'node:crypto';

/**
 * SHA-256 (hex) of the payload's canonical JSON: object keys sorted at every
 * depth, so `{a, b}` and `{b, a}` are the same payload. Values go through
 * `JSON.stringify` rules (`toJSON`, undefined properties dropped).
 */
export function fingerprint(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortKeys) ?? 'null';
}

function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // fromEntries defines own properties, so a `__proto__` key stays data.
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, record[key]]),
  );
}
