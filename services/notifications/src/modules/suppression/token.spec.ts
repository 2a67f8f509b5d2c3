import { describe, expect, it } from 'vitest';
import { unsubscribeTokens } from './token.ts';

describe('unsubscribe tokens', () => {
  const tokens = unsubscribeTokens('a-signing-key-of-the-tests-own-0123456789');

  it('carry the address, lowercased, and do not show it', () => {
    const token = tokens.issue('Ada@Example.Test');
    // The token is random (a fresh IV each time), so any short word can turn up
    // in it by chance: assert that the address does not, in clear or in base64url.
    for (const shown of [
      'ada@example.test',
      'example.test',
      Buffer.from('ada@example.test').toString('base64url'),
    ]) {
      expect(token.toLowerCase()).not.toContain(shown.toLowerCase());
    }
    expect(tokens.issue('Ada@Example.Test')).not.toBe(token);
    expect(tokens.read(token)).toBe('ada@example.test');
  });

  it('refuse a token from another key, a tampered token and garbage', () => {
    const token = tokens.issue('ada@example.test');
    expect(unsubscribeTokens('another-key-entirely-0123456789abcdef').read(token)).toBeUndefined();
    const tampered = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    expect(tokens.read(tampered)).toBeUndefined();
    for (const garbage of ['', 'x', 'not a token at all!', 'A'.repeat(60)]) {
      expect(tokens.read(garbage)).toBeUndefined();
    }
  });
});
