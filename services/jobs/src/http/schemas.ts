import { containsLinkOrAddress, hasLoneSurrogate, text } from '@hireflow/contracts';
import { pageLimit } from '@hireflow/runtime';
import { z } from 'zod';

export { text };

/**
 * Text a tenant supplies that reaches an email's subject or body (a
 * candidate's name and headline, a posting's title): no links and no email
 * addresses, so Hireflow's sender never carries a stranger's phishing text
 * (docs/security.md, API6).
 */
export const emailSafeText = (max: number, options: { min?: number } = {}) =>
  text(max, options).refine((value) => !containsLinkOrAddress(value), {
    message: 'must not contain a link or an email address',
  });

export const email = z
  .email({ message: 'must be an email address' })
  .max(254, 'must be at most 254 characters')
  .refine((s) => !hasLoneSurrogate(s), { message: 'must be valid Unicode' });

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
