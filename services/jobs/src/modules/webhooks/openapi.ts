import { z } from 'zod';
import { webhookPayloads } from './events.ts';

const HEADERS = [
  {
    name: 'webhook-id',
    description: 'The delivery id: the same on every retry of this delivery (deduplicate on it)',
    example: 'msg_0f8e3a52-6c1e-4d8a-9a41-3f1b2d7c9e10',
  },
  {
    name: 'webhook-timestamp',
    description: "The attempt's time, in seconds since the epoch",
    example: '1764590400',
  },
  {
    name: 'webhook-signature',
    description:
      'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> per secret, space separated (two during a rotation)',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/**
 * The OpenAPI 3.1 `webhooks` section: each event type an endpoint can
 * receive, as the POST Hireflow sends (Standard Webhooks headers, the body
 * `{ type, timestamp, data }`) and what it expects back.
 */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(webhookPayloads).map(([type, data]) => {
      const body = z.object({
        type: z.literal(type),
        timestamp: z.string().describe('When the event happened (ISO 8601)'),
        data,
      });
      const { $schema: _, ...schema } = z.toJSONSchema(body, { io: 'output' }) as Record<string, unknown>;
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replaceAll('.', '_')}`,
            tags: ['webhooks'],
            summary: `${type}: ${data.description ?? type}`,
            description:
              'Sent to every enabled endpoint of the tenant subscribed to this type. Verify the signature ' +
              '(docs/webhooks.md), then answer 2xx within 10 seconds; anything else is retried for about 3 days.',
            security: [],
            parameters: HEADERS.map(({ name, description, example }) => ({
              name,
              in: 'header',
              required: true,
              description,
              schema: { type: 'string' },
              example,
            })),
            requestBody: { required: true, content: { 'application/json': { schema } } },
            responses: {
              '200': { description: 'Received (any 2xx within 10 s is success)' },
              '410': { description: 'Gone: Hireflow disables the endpoint at once' },
            },
          },
        },
      ];
    }),
  );
}
