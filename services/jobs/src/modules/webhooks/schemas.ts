import { z } from 'zod';
import { text } from '../../http/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from './events.ts';

const eventType = z.enum(WEBHOOK_EVENT_TYPES, {
  message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
});
const events = z
  .array(eventType, { message: 'must be an array of event types' })
  .min(1, 'must name at least one event type')
  .max(WEBHOOK_EVENT_TYPES.length, 'must not repeat an event type');
const url = z
  .string({ message: 'must be a string' })
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2048 characters')
  .describe('Where deliveries are POSTed: https (http only in local development)');

export const createEndpointBody = z
  .strictObject({
    url,
    events,
    description: text(500, { min: 0 }).optional().describe('A note for the tenant (at most 500 characters)'),
  })
  .meta({
    description: 'A webhook endpoint to register',
    examples: [{ url: 'https://ats.example.com/hireflow', events: ['posting.matched', 'upload.ready'] }],
  });

export const patchEndpointBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    enabled: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .describe('true re-enables a disabled endpoint'),
  })
  .meta({ description: 'What to change; enabling clears why it was disabled' });

export const endpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().describe('Why Hireflow disabled it (410 Gone, failing for 3 days)'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint (its secret is shown only when issued)' });

export const endpointWithSecret = endpointSchema
  .extend({
    secret: z.string().describe('The signing secret (whsec_…): shown this once, keep it'),
  })
  .meta({ id: 'WebhookEndpointWithSecret', description: 'A webhook endpoint and its new signing secret' });

export const endpointList = z
  .object({ items: z.array(endpointSchema) })
  .meta({ id: 'WebhookEndpointList', description: "The tenant's webhook endpoints, newest first" });

export const secretSchema = z
  .object({
    secret: z.string().describe('The new signing secret (whsec_…): shown this once'),
    previousSecretExpiresAt: z
      .string()
      .describe('Until then deliveries carry a signature of the old secret too'),
  })
  .meta({ id: 'WebhookSecret', description: 'A rotated signing secret' });

export const deliverySchema = z
  .object({
    id: z.uuid(),
    webhookId: z.string().describe('The webhook-id header of every attempt of this delivery'),
    type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastLatencyMs: z.number().int().nullable(),
    lastError: z.string().nullable().describe('Why the last attempt got no answer (refused, timed out, …)'),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery', description: 'A delivery of one event to one endpoint' });

export const deliveryPage = z
  .object({
    items: z.array(deliverySchema),
    nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null on the last page'),
  })
  .meta({ id: 'WebhookDeliveryPage', description: "A page of an endpoint's deliveries, newest first" });

export const deliveryDetail = deliverySchema
  .extend({
    attempts: z.number().int(),
    attemptLog: z.array(
      z
        .object({
          attemptedAt: z.string(),
          statusCode: z.number().int().nullable(),
          latencyMs: z.number().int(),
          error: z.string().nullable(),
          responseBody: z.string().describe('The first KiB of the response body'),
        })
        .meta({ id: 'WebhookAttempt' }),
    ),
  })
  .meta({ id: 'WebhookDeliveryDetail', description: 'A delivery and each of its attempts' });

export const deliveryAccepted = z
  .object({ deliveryId: z.uuid(), status: z.literal('pending') })
  .meta({ id: 'WebhookDeliveryAccepted', description: 'A delivery is on its way' });
