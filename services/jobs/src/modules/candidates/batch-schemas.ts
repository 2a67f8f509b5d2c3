// The schemas of POST /v1/candidates:batch. An item that fails its schema
// does not fail the request: it is caught and carried to the handler with its
// issues, to be reported in its place (batch.ts); the document still shows
// the item's schema.
import { z } from 'zod';
import { candidateBatchAcceptedExample, candidateBatchExample } from '../../http/examples.ts';
import { text } from '../../http/schemas.ts';
import { MAX_BATCH_ITEMS, type ParsedItem } from './batch.ts';

export function batchSchemas(registerBody: z.ZodObject) {
  const item = registerBody
    .extend({
      key: text(200)
        .optional()
        .describe(
          "The item's idempotency key (the tenant's): sent again, the item answers what it answered first; " +
            'the same key with another item is a conflict',
        ),
    })
    .meta({ id: 'CandidateBatchItem', description: 'A candidate to register, with an optional key' });
  const parsedItem = item
    .transform((value): ParsedItem => ({ ok: true, item: value as never }))
    .catch((ctx): ParsedItem => ({ ok: false, issues: ctx.error.issues }));
  const body = z
    .strictObject({
      items: z
        .array(parsedItem)
        .min(1, 'must have at least 1 item')
        .max(MAX_BATCH_ITEMS, `must have at most ${MAX_BATCH_ITEMS} items`),
    })
    .meta({
      description: `Up to ${MAX_BATCH_ITEMS} candidates`,
      examples: [candidateBatchExample],
    });
  const result = z
    .object({
      id: z.uuid().nullable().describe("The candidate's id; null when the item was not registered"),
      status: z
        .enum(['registered', 'existing', 'invalid', 'conflict'])
        .describe(
          'registered: new (its welcome email and matching follow, in the bulk lane); existing: the email was ' +
            "already registered (the existing candidate's id, nothing emitted); invalid: see errors; conflict: " +
            'the key was already used with another item',
        ),
      errors: z
        .array(z.object({ field: z.string(), message: z.string() }))
        .optional()
        .describe('For an invalid or conflicting item: each field at fault, as items[i].field'),
    })
    .meta({ id: 'CandidateBatchResult' });
  const accepted = z
    .object({
      batchId: z.uuid(),
      items: z.array(result).describe('One result per item, in the order sent'),
      traceId: z.string().nullable().describe('Trace id of this request, to open it in Jaeger'),
    })
    .meta({
      id: 'CandidateBatchAccepted',
      description: 'The batch is taken: each item registered or reported in its place',
      examples: [candidateBatchAcceptedExample],
    });
  return { body, accepted };
}
