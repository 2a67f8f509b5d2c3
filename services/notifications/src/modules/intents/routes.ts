import type { Database } from '@hireflow/db';
import { type HttpServer, pageLimit, problemSchema } from '@hireflow/runtime';
import { z } from 'zod';
import { NOTIFICATION_STATUSES, TEMPLATES } from '../../db/notification-log.ts';
import { listByRecipient } from './store.ts';

const listQuery = z.strictObject({
  recipient: z.email({ message: 'must be an email address' }).max(254, 'must be at most 254 characters'),
  status: z.enum(NOTIFICATION_STATUSES, { message: 'must be one of queued, sent, failed' }).optional(),
  limit: pageLimit,
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,18}$/, 'is not a valid cursor')
    .refine((value) => !/^\d{1,19}$/.test(value) || BigInt(value) <= 9_223_372_036_854_775_807n, {
      message: 'is not a valid cursor',
    })
    .optional(),
});

const notification = z.object({
  key: z.string().describe('Intent key, e.g. welcome-email:<candidateId>'),
  recipient: z.string(),
  template: z.enum(TEMPLATES),
  status: z.enum(NOTIFICATION_STATUSES),
  attempts: z.number().int().describe('SMTP attempts made'),
  messageId: z.string().describe('Message-ID header: a hash of the key'),
  providerMessageId: z.string().nullable().describe("The SMTP server's id from its 250 reply"),
  error: z.string().nullable().describe('Last failure, if any'),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
});

/**
 * Internal: served on the admin listener only (docs/design.md, "Listeners"),
 * behind ADMIN_TOKEN when set, never on the service port. Support tooling and
 * tests read the log through it.
 */
export function registerInternalRoutes(admin: HttpServer, options: { orm: Database }): void {
  admin.get(
    '/internal/notifications',
    {
      schema: {
        summary: "A recipient's notifications, newest first (admin listener only)",
        querystring: listQuery,
        response: {
          200: z.object({ items: z.array(notification), nextCursor: z.string().nullable() }),
          400: problemSchema,
        },
      },
    },
    async (request) => listByRecipient(options.orm.em.fork(), request.query),
  );
}
