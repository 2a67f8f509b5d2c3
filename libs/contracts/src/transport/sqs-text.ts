// Text that can travel (docs/design.md, "Dependencies that are only
// unavailable"): SQS refuses a message holding any character outside
// #x9 #xA #xD #x20–#xD7FF #xE000–#xFFFD #x10000–#x10FFFF
// (`InvalidMessageContents`), and SNS cannot deliver one to an SQS
// subscription either. A string that an event may carry must stay inside
// that set, or the event is stranded: the relay, the consumer's re-send and
// dead-letter paths and `pnpm replay` would all fail on it. One rule, used
// by every text schema (../text.ts), by the envelope check of whole events
// (`nonSqsTextPath`) and by the HTTP door; composable with any other
// refinement (`.regex(SQS_TEXT, SQS_TEXT_MESSAGE)` or `sqsText(schema)`).
import type { z } from 'zod';

/**
 * A string made of SQS's characters only, written over UTF-16 code units
 * (a surrogate pair is one supplementary character) so that it means the
 * same without the `u` flag: JSON Schema's `pattern`, any ECMA-262 engine.
 */
export const SQS_TEXT = /^(?:[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

export const SQS_TEXT_MESSAGE =
  'must contain only characters a message can carry (no U+FFFE, U+FFFF, lone surrogates or control characters but tab and newlines)';

/** One character SQS cannot carry (a code unit: a lone surrogate is one). */
const NOT_SQS =
  /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\uD800-\uDFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Whether every character of `value` is one SQS can carry. */
export function isSqsText(value: string): boolean {
  return SQS_TEXT.test(value);
}

/** The schema, refusing strings SQS cannot carry. */
export function sqsText<T extends z.ZodString>(schema: T): T {
  return schema.regex(SQS_TEXT, SQS_TEXT_MESSAGE) as T;
}

/**
 * The path of the first string (a key or a value) in a JSON value that SQS
 * cannot carry, as a list of keys and indexes (`['data', 'description']`),
 * or undefined when all of them can travel.
 */
export function nonSqsTextPath(
  value: unknown,
  path: (string | number)[] = [],
): (string | number)[] | undefined {
  if (typeof value === 'string') return isSqsText(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonSqsTextPath(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (!isSqsText(key)) return [...path, key];
      const found = nonSqsTextPath(inner, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Makes a JSON text SQS-safe without losing information: every character
 * outside the set is written as a JSON `\uXXXX` escape (a lone surrogate or
 * U+FFFF keeps its code unit), so `JSON.parse` of the result gives back the
 * very same value. For transport of what is already stored (replay,
 * re-send, dead-letter); new events are refused instead.
 */
export function escapeForSqs(json: string): string {
  return json.replace(NOT_SQS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Short text for an attribute (a dead-letter reason): each character SQS cannot carry becomes U+FFFD. */
export function toSqsText(value: string): string {
  return value.replace(NOT_SQS, '\uFFFD');
}
