import { z } from 'zod';

/** The RFC 9457 problem body every error answers with (for route response schemas and OpenAPI). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number(),
    code: z.string(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .describe('RFC 9457 problem details');

/** `?limit=` of a paged list: 1..100, default 20. */
export const pageLimit = z.coerce
  .number({ message: 'must be a number' })
  .int('must be a whole number')
  .min(1, 'must be between 1 and 100')
  .max(100, 'must be between 1 and 100')
  .default(20);
