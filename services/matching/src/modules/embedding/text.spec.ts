import { describe, expect, it } from 'vitest';
import { normaliseText } from '../skills/spelling.ts';
import { phrases } from './text.ts';

describe('normaliseText', () => {
  it('applies NFKC and lowercase', () => {
    // full-width letters and the "ﬁ" ligature fold to plain ASCII
    expect(normaliseText('ＴｙｐｅＳｃｒｉｐｔ ﬁle')).toBe('typescript file');
  });

  it('joins technology names written with dots', () => {
    expect(normaliseText('Node.js, Vue.js and .NET')).toBe('nodejs, vuejs and dotnet');
    // a full stop followed by a space stays one
    expect(normaliseText('We ship. Daily.')).toBe('we ship. daily.');
  });
});

describe('phrases', () => {
  it('splits at punctuation, keeps c++ and c#, drops stop words and bare numbers', () => {
    expect(phrases('We use Node.js, NodeJS and node; C++ / C# and .NET. 5+ years of Go!')).toEqual([
      ['nodejs'],
      ['nodejs', 'nodejs'],
      ['c++', 'c#', 'dotnet'],
      ['go'],
    ]);
  });

  it('maps aliases to canonical words', () => {
    expect(phrases('JS and TS on K8s with Postgres')).toEqual([
      ['javascript', 'typescript', 'kubernetes', 'postgresql'],
    ]);
  });

  it('handles other scripts and empty text', () => {
    expect(phrases('Ingénieur logiciel — Développeur')).toEqual([['ingénieur', 'logiciel', 'développeur']]);
    expect(phrases('')).toEqual([]);
  });
});
