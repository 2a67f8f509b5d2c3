import type { AnyEvent } from '@hireflow/contracts';
import { z } from 'zod';

// The event types a webhook endpoint can subscribe to, their payloads, and
// the catalog events they are made from. Payloads carry ids and public
// fields: never a name, an email address or another tenant's data.

export const WEBHOOK_EVENT_TYPES = [
  'posting.matched',
  'posting.closed',
  'upload.ready',
  'upload.failed',
  'candidate.registered',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent by POST /v1/webhooks/{id}/test, whatever the endpoint subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

const variant = z.object({
  name: z.string(),
  width: z.number(),
  height: z.number(),
  contentType: z.string(),
  url: z.string(),
});

/** Each type's `data`, as the API document's `webhooks` section shows it. */
export const webhookPayloads = {
  'posting.matched': z
    .object({
      jobId: z.uuid(),
      matchCount: z.number().int(),
      computedAt: z.string().describe('When these matches were computed'),
    })
    .describe("A posting's matches were computed for the first time, or changed"),
  'posting.closed': z
    .object({ jobId: z.uuid(), closedAt: z.string() })
    .describe('A posting was closed (by the API or when it expired)'),
  'upload.ready': z
    .object({
      uploadId: z.uuid(),
      ownerType: z.enum(['job', 'candidate']).optional(),
      ownerId: z.uuid().optional(),
      variants: z.array(variant),
    })
    .describe('An upload was resized; its variants are at public URLs'),
  'upload.failed': z
    .object({ uploadId: z.uuid(), reason: z.string() })
    .describe('An upload could not be processed'),
  'candidate.registered': z
    .object({ candidateId: z.uuid(), registeredAt: z.string() })
    .describe('A candidate registered (GET /v1/candidates/{id} for the profile)'),
  [TEST_EVENT_TYPE]: z
    .object({ endpointId: z.uuid(), message: z.string() })
    .describe('Sent on request by POST /v1/webhooks/{id}/test'),
} as const;

export interface WebhookEvent {
  type: WebhookEventType;
  tenantId: string;
  data: Record<string, unknown>;
}

/** The webhook an event makes (its tenant's), or undefined for an event that makes none. */
export function webhookOf(event: AnyEvent): WebhookEvent | undefined {
  switch (event.type) {
    case 'job.matched.v1': {
      const { jobId, tenantId, matchCount, computedAt } = event.data;
      return { type: 'posting.matched', tenantId, data: { jobId, matchCount, computedAt } };
    }
    case 'job.closed.v1': {
      const { jobId, tenantId, closedAt } = event.data;
      return { type: 'posting.closed', tenantId, data: { jobId, closedAt } };
    }
    case 'media.processed.v1': {
      const { uploadId, tenantId, ownerType, ownerId, variants } = event.data;
      return {
        type: 'upload.ready',
        tenantId,
        data: { uploadId, ...(ownerType ? { ownerType, ownerId } : {}), variants },
      };
    }
    case 'media.failed.v1': {
      const { uploadId, tenantId, reason } = event.data;
      return { type: 'upload.failed', tenantId, data: { uploadId, reason } };
    }
    case 'candidate.registered.v1': {
      const { candidateId, tenantId } = event.data;
      return { type: 'candidate.registered', tenantId, data: { candidateId, registeredAt: event.time } };
    }
    default:
      return undefined;
  }
}

/** The body of a delivery (Standard Webhooks' `{ type, timestamp, data }`), fixed when it is created. */
export function webhookBody(type: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp, data });
}
