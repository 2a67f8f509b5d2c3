import { describe, expect, it } from 'vitest';
import { idFromKey } from './service.ts';

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
