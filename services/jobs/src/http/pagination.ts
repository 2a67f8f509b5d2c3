import { HttpProblem } from '@hireflow/runtime';
import { z } from 'zod';

const uuid = z.uuid();

// Date.UTC maps years 0..99 to 1900..1999, so year 1 is spelled out.
const YEAR_1 = Date.parse('0001-01-01T00:00:00.000Z');
const YEAR_10000 = Date.parse('+010000-01-01T00:00:00.000Z');

/** A time Postgres can compare with: ISO form, years 1..9999. */
export function isCursorTime(at: string): boolean {
  const time = Date.parse(at);
  return !Number.isNaN(time) && time >= YEAR_1 && time < YEAR_10000;
}

/** Opaque keyset cursor: the sort key and id of the last item of a page. */
export interface Cursor {
  at: string;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

/** Reads a cursor back: a time Postgres can compare and a UUID, or a 400. */
export function decodeCursor(value: string | undefined): Cursor | undefined {
  if (value === undefined) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string' && isCursorTime(at) && uuid.safeParse(id).success) {
      return { at, id };
    }
  } catch {
    // falls through to the problem below
  }
  throw invalidCursor();
}

/** The keyset of a matches listing (score desc, then found at, then match id). */
export interface MatchCursor {
  score: number;
  foundAt: string;
  id: string;
}

export function encodeMatchCursor(cursor: MatchCursor): string {
  return Buffer.from(JSON.stringify([cursor.score, cursor.foundAt, cursor.id])).toString('base64url');
}

export function decodeMatchCursor(value: string | undefined): MatchCursor | undefined {
  if (value === undefined) return undefined;
  try {
    const [score, foundAt, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
    // Passed to Postgres as a number and a time: only a score in [0, 1] and a comparable time.
    const validScore = typeof score === 'number' && Number.isFinite(score) && score >= 0 && score <= 1;
    if (validScore && typeof foundAt === 'string' && isCursorTime(foundAt) && uuid.safeParse(id).success) {
      return { score, foundAt, id: id as string };
    }
  } catch {
    // falls through to the problem below
  }
  throw invalidCursor();
}

function invalidCursor(): HttpProblem {
  return new HttpProblem(400, 'VALIDATION_FAILED', 'cursor is not one this API returned', {
    errors: [{ field: 'cursor', message: 'is not valid' }],
  });
}

/**
 * The keyset of a newest-first page (sorted by a time desc, then id desc)
 * after the cursor a client sent, or undefined for the first page; a 400 for
 * a cursor this API did not give. The time is a Date, so the store writes it
 * as the ISO text the cursor was made from.
 */
export function keysetAfter(cursor: string | undefined): { at: Date; id: string } | undefined {
  const after = decodeCursor(cursor);
  return after && { at: new Date(after.at), id: after.id };
}

/**
 * Splits `limit + 1` rows fetched newest first into a page and the cursor
 * of the next (keyset pagination: stable under inserts); `keyOf` gives a
 * row's time and id.
 */
export function newestFirstPage<T>(
  rows: T[],
  limit: number,
  keyOf: (row: T) => { at: Date; id: string },
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  if (rows.length <= limit || !last) return { items, nextCursor: null };
  const { at, id } = keyOf(last);
  return { items, nextCursor: encodeCursor({ at: at.toISOString(), id }) };
}
