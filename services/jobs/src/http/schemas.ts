import { pageLimit } from '@hireflow/runtime';
import { z } from 'zod';

// Text a person typed: trimmed, bounded, and free of what Postgres or a reader
// cannot take (NUL and other control characters, lone UTF-16 surrogates).
const LONE_SURROGATE = /\p{Cs}/u;

function hasControlCharacter(value: string, multiline: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const allowedWhitespace = multiline && (code === 0x09 || code === 0x0a || code === 0x0d);
    if ((code < 0x20 && !allowedWhitespace) || code === 0x7f) return true;
  }
  return false;
}

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
    .refine((s) => !LONE_SURROGATE.test(s), { message: 'must be valid Unicode (no lone surrogates)' });

export const email = z
  .email({ message: 'must be an email address' })
  .max(254, 'must be at most 254 characters')
  .refine((s) => !LONE_SURROGATE.test(s), { message: 'must be valid Unicode' });

export const skills = z
  .array(text(64), { message: 'must be an array of strings' })
  .max(50, 'must have at most 50 skills')
  .refine((list) => new Set(list.map((s) => s.toLowerCase())).size === list.length, {
    message: 'must not repeat a skill',
  });

export const uuidParam = z.uuid({ message: 'must be a UUID' });

export const pageQuery = z.strictObject({
  limit: pageLimit,
  cursor: z.string().max(200, 'is not a valid cursor').optional(),
});

export const accepted = z.object({
  id: z.uuid(),
  status: z.string(),
  traceId: z.string().nullable().describe('Trace id of this request, to open it in Jaeger'),
});

/** A processed upload of the media service: its variants, each at a public URL. */
export const mediaImage = z.object({
  uploadId: z.uuid(),
  variants: z.array(
    z.object({
      name: z.string(),
      width: z.number(),
      height: z.number(),
      contentType: z.string(),
      url: z.string(),
    }),
  ),
});

export { problemSchema } from '@hireflow/runtime';
