import { z } from 'zod';
import { SQS_TEXT, SQS_TEXT_MESSAGE } from './transport/sqs-text.ts';

// Text a person typed, as every schema takes it (HTTP bodies and event data):
// trimmed, bounded, and free of what Postgres or a reader cannot take (NUL
// and other control characters, lone UTF-16 surrogates). An event breaking
// these rules is poison at once, never a retried database error. Every such
// string also keeps to the characters SQS can carry (sqs-text.ts).

const LONE_SURROGATE = /\p{Cs}/u;

export function hasControlCharacter(value: string, multiline: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const allowedWhitespace = multiline && (code === 0x09 || code === 0x0a || code === 0x0d);
    if ((code < 0x20 && !allowedWhitespace) || code === 0x7f) return true;
  }
  return false;
}

export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** A bounded, trimmed string without control characters (but tab and newlines when multiline). */
export const text = (max: number, options: { multiline?: boolean; min?: number } = {}) =>
  z
    .string()
    .trim()
    .min(options.min ?? 1, options.min === 0 ? undefined : 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !hasControlCharacter(s, options.multiline ?? false), {
      message: options.multiline
        ? 'must not contain control characters'
        : 'must be a single line without control characters',
    })
    .refine((s) => !hasLoneSurrogate(s), { message: 'must be valid Unicode (no lone surrogates)' })
    .regex(SQS_TEXT, SQS_TEXT_MESSAGE);
