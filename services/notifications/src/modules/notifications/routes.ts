import type { MikroORM } from '@hireflow/db';
import { type createHttpServer, pageLimit, problemSchema } from '@hireflow/runtime';
import { z } from 'zod';
import { NOTIFICATION_STATUSES, TEMPLATES } from '../../db/entities.ts';
import { listByRecipient } from './log.ts';

/** The app createHttpServer returns: zod type provider and compilers already set. */
type App = ReturnType<typeof createHttpServer>;

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
 * Internal-only (DESIGN: notifications has no public API): no authentication,
 * so it must only be reachable inside the service network, never through the
 * public ingress. Support tooling and tests read the log through it.
 */
export function registerNotificationRoutes(app: App, options: { orm: MikroORM }): void {
  app.get(
    '/v1/notifications',
    {
      schema: {
        summary: "A recipient's notifications, newest first (internal only, unauthenticated)",
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
