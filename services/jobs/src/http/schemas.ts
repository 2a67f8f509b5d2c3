import { displayText, hasLoneSurrogate, text } from '@hireflow/contracts';
import { pageLimit } from '@hireflow/runtime';
import { z } from 'zod';

export { text };

/**
 * Text a tenant supplies that reaches an email's subject or body (a
 * candidate's name and headline, a posting's title): the catalog's display
 * text rule (no link, host or address, no bidi override, no line separator;
 * NFKC), so Hireflow's sender never carries a stranger's phishing text
 * (docs/security.md, API6) and what the API takes the events carry.
 */
export const emailSafeText = displayText;

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
  limit: pageLimit.describe('Items per page, 1 to 100'),
  cursor: z
    .string()
    .max(200, 'is not a valid cursor')
    .optional()
    .describe("The previous page's nextCursor; omit for the first page"),
});

export const accepted = z
  .object({
    id: z.uuid(),
    status: z.string().describe('The status right after the request: processing, closed, registered'),
    traceId: z.string().nullable().describe('Trace id of this request, to open it in Jaeger'),
  })
  .meta({ id: 'Accepted', description: 'The request is accepted; what follows happens behind it' });

/** A processed upload of the media service: its variants, each at a public URL. */
export const mediaImage = z
  .object({
    uploadId: z.uuid(),
    variants: z.array(
      z
        .object({
          name: z.string().describe('thumb (at most 128 px) or medium (at most 512 px)'),
          width: z.number(),
          height: z.number(),
          contentType: z.string(),
          url: z.string().describe('Public URL of the image (no API key needed)'),
        })
        .meta({ id: 'ImageVariant' }),
    ),
  })
  .meta({ id: 'Image', description: 'An uploaded image, resized by the media service' });
