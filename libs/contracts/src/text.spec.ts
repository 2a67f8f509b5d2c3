import { describe, expect, it } from 'vitest';
import { containsLinkOrAddress, hasControlCharacter, text } from './text.ts';

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

  it('find links and email addresses, and leave technology names alone', () => {
    for (const spam of [
      'your account is locked, verify at https://evil.example/login',
      'visit www.cheap-meds.biz',
      'write to bob+1@victim.test',
      'Engineer at example.com',
      'see evil.example/login',
      'JAVASCRIPT://alert(1)',
    ]) {
      expect(containsLinkOrAddress(spam), spam).toBe(true);
    }
    for (const fine of [
      'Node.js developer',
      'C# and .NET',
      'Senior engineer (m/f/d)',
      'Ada Lovelace',
      'ASP.NET Core, Vue.js',
      'R&D lead',
    ]) {
      expect(containsLinkOrAddress(fine), fine).toBe(false);
    }
  });
});
