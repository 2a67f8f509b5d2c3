import { describe, expect, it } from 'vitest';
import { createEvent, InvalidEventError, parseEvent } from '../index.ts';
import { text } from '../text.ts';
import { escapeForSqs, isSqsText, nonSqsTextPath } from './sqs-text.ts';

// SQS's set: #x9 #xA #xD #x20–#xD7FF #xE000–#xFFFD #x10000–#x10FFFF.
describe('the SQS character set', () => {
  it('takes what SQS takes, and nothing else', () => {
    for (const fine of ['', 'a\tb\nc\r', ' ~\u00a0\u0085\ud7ff', '\ue000\ufffd', '😀 \u{10ffff} \u{1fffe}']) {
      expect(isSqsText(fine), JSON.stringify(fine)).toBe(true);
    }
    for (const bad of [
      '\ufffe',
      'x\uffff',
      '\u0000',
      '\u001f',
      '\u000b',
      '\ud800',
      'a\udc00b',
      '\udc00\ud800',
    ]) {
      expect(isSqsText(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('is part of every text schema, naming the character set', () => {
    const result = text(100, { multiline: true }).safeParse('Build things\uffff');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/characters a message can carry/);
  });

  it('finds the first string that cannot travel, keys included', () => {
    expect(nonSqsTextPath({ a: ['x', { b: 'y\uffff' }] })).toEqual(['a', 1, 'b']);
    expect(nonSqsTextPath({ ['k\ufffe']: 1 })).toEqual(['k\ufffe']);
    expect(nonSqsTextPath({ a: 1, b: [true, null, 'ok'] })).toBeUndefined();
  });

  it('makes an event poison, whatever field holds the character', () => {
    const event = createEvent(
      'media.failed.v1',
      { uploadId: crypto.randomUUID(), tenantId: crypto.randomUUID(), reason: 'bad image' },
      { source: 'hireflow/media' },
    );
    const injected = { ...event, subject: 'upload\uffff' };
    expect(() => parseEvent(injected)).toThrow(InvalidEventError);
    expect(() => parseEvent(injected)).toThrow(/subject: must contain only characters/);
  });

  it('escapes stored JSON for transport without changing what it parses to', () => {
    const value = { d: 'a\uffffb\ufffe', lone: '\ud800x\udc00', pair: '😀', nl: 'x\ny' };
    for (const json of [
      JSON.stringify(value),
      // As a JSON text may hold them raw (another writer than JSON.stringify).
      '{"d":"a\uffffb\ufffe","lone":"\ud800x\udc00","pair":"😀","nl":"x\\ny"}',
    ]) {
      const escaped = escapeForSqs(json);
      expect(isSqsText(escaped), escaped).toBe(true);
      expect(JSON.parse(escaped)).toEqual(value);
    }
  });
});
