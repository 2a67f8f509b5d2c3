import { HttpProblem } from '@hireflow/runtime';
import { describe, expect, it } from 'vitest';
import {
  decodeCursor,
  decodeMatchCursor,
  encodeCursor,
  encodeMatchCursor,
  isCursorTime,
} from './pagination.ts';

const id = '0b6c2a52-8e7c-4b8e-9a3f-6f0d1c2e3a4b';

describe('keyset cursors', () => {
  it('round-trip the sort key and id, opaque to the client', () => {
    const cursor = encodeCursor({ at: '2026-11-30T10:00:00.000Z', id });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ at: '2026-11-30T10:00:00.000Z', id });
    expect(decodeCursor(undefined)).toBeUndefined();
  });

  it('refuse what this API never returned, with a 400 naming the cursor', () => {
    const forged = [
      'not base64 at all!',
      Buffer.from('{"at":1}').toString('base64url'),
      encodeCursor({ at: 'yesterday', id }),
      encodeCursor({ at: '2026-11-30T10:00:00.000Z', id: "1' OR '1'='1" }),
      encodeCursor({ at: '+275760-09-13T00:00:00.000Z', id }),
    ];
    for (const cursor of forged) {
      try {
        decodeCursor(cursor);
        expect.unreachable(`accepted ${cursor}`);
      } catch (error) {
        expect(error).toBeInstanceOf(HttpProblem);
        expect((error as HttpProblem).statusCode).toBe(400);
        expect((error as HttpProblem).errors).toEqual([{ field: 'cursor', message: 'is not valid' }]);
      }
    }
  });

  it('carry a match listing’s keyset: score, time found, id', () => {
    const cursor = { score: 0.7345678901234567, foundAt: '2026-11-30T10:00:00.123Z', id };
    expect(decodeMatchCursor(encodeMatchCursor(cursor))).toEqual(cursor);
    const forged = [
      encodeMatchCursor({ score: 1.5, foundAt: cursor.foundAt, id }),
      encodeMatchCursor({ score: Number.NaN, foundAt: cursor.foundAt, id }),
      encodeMatchCursor({ score: 0.5, foundAt: 'soon', id }),
      encodeMatchCursor({ score: 0.5, foundAt: cursor.foundAt, id: 'x' }),
      Buffer.from(JSON.stringify(['0.5', cursor.foundAt, id])).toString('base64url'),
      encodeCursor({ at: '0.5', id }),
    ];
    for (const value of forged) expect(() => decodeMatchCursor(value), value).toThrow(HttpProblem);
  });

  it('accept only times Postgres can compare (years 1 to 9999)', () => {
    expect(isCursorTime('0001-01-01T00:00:00.000Z')).toBe(true);
    expect(isCursorTime('9999-12-31T23:59:59.999Z')).toBe(true);
    expect(isCursorTime('+010000-01-01T00:00:00.000Z')).toBe(false);
    expect(isCursorTime('nope')).toBe(false);
  });
});
