import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from './fingerprint.ts';
import { idempotencyKey, idFromKey } from './key.ts';

describe('idempotencyKey', () => {
  it('joins the intent and its parts', () => {
    expect(idempotencyKey('welcome-email', 'c-42')).toBe('welcome-email:c-42');
    expect(idempotencyKey('match-email', 'j1', 7, 9n)).toBe('match-email:j1:7:9');
  });

  it('keeps distinct part lists distinct', () => {
    expect(idempotencyKey('a', 'b:c')).not.toBe(idempotencyKey('a', 'b', 'c'));
    expect(idempotencyKey('a', 'b%3Ac')).not.toBe(idempotencyKey('a', 'b:c'));
  });

  it('rejects empty parts, a missing part and a malformed intent', () => {
    expect(() => idempotencyKey('welcome-email', '')).toThrow(/part 0 is empty/);
    expect(() => idempotencyKey('welcome-email', 'x', '  ')).toThrow(/part 1 is empty/);
    expect(() => idempotencyKey('welcome-email', Number.NaN)).toThrow(/finite/);
    expect(() => idempotencyKey('welcome-email')).toThrow(/at least one part/);
    expect(() => idempotencyKey('', 'x')).toThrow(/intent/);
    expect(() => idempotencyKey('a:b', 'x')).toThrow(/intent/);
  });
});

describe('fingerprint', () => {
  it('is the same for the same JSON whatever the key order, at any depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(fingerprint({ b: 1, a: 2 })).toBe(fingerprint({ a: 2, b: 1 }));
    expect(fingerprint({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for different payloads, arrays in another order included', () => {
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
    expect(fingerprint([1, 2])).not.toBe(fingerprint([2, 1]));
  });

  it('keeps a __proto__ key as data', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":1}'))).toBe('{"__proto__":{"x":1},"a":1}');
  });
});

describe('idFromKey', () => {
  it('derives the same UUID from the same key, a different one from another key', () => {
    expect(idFromKey('job:http:t1:abc')).toBe(idFromKey('job:http:t1:abc'));
    expect(idFromKey('job:http:t1:abc')).not.toBe(idFromKey('job:http:t2:abc'));
  });

  it('is a well-formed version 8 (name-based) UUID with the RFC 9562 variant', () => {
    for (const key of ['a', 'job:http:tenant:key', '☃', 'x'.repeat(500)]) {
      expect(idFromKey(key)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
