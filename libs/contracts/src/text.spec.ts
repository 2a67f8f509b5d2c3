import { describe, expect, it } from 'vitest';
import { hasControlCharacter, text } from './text.ts';

describe('text rules', () => {
  it('refuse control characters (NUL included), allowing tab and newlines only in multiline text', () => {
    expect(hasControlCharacter('Ada\u0000', false)).toBe(true);
    expect(hasControlCharacter('a\nb', false)).toBe(true);
    expect(hasControlCharacter('a\nb\tc', true)).toBe(false);
    expect(hasControlCharacter('a\u007fb', true)).toBe(true);
    expect(text(10).safeParse('  Ada  ').data).toBe('Ada');
    expect(text(10).safeParse('\ud800x').success).toBe(false);
    expect(text(3).safeParse('abcd').success).toBe(false);
  });
});
