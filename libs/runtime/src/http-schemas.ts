import { z } from 'zod';

/**
 * The RFC 9457 problem body every error answers with (for route response
 * schemas and OpenAPI, where it is the component `Problem`).
 */
export const problemSchema = z
  .object({
    type: z.string().describe('A URI naming the kind of problem (one per code)'),
    title: z.string().describe("The HTTP status's name"),
    status: z.number().int().describe('The HTTP status code'),
    code: z.string().describe('Stable machine-readable code: VALIDATION_FAILED, NOT_FOUND, RATE_LIMITED, …'),
    detail: z.string().optional().describe('What went wrong, for a person'),
    instance: z.string().optional().describe('The request path'),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe('Each field at fault (`skills[0]`, `authorization`, `file`) and what is wrong with it'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

/** `?limit=` of a paged list: 1..100, default 20. */
export const pageLimit = z.coerce
  .number({ message: 'must be a number' })
  .int('must be a whole number')
  .min(1, 'must be between 1 and 100')
  .max(100, 'must be between 1 and 100')
  .default(20);
