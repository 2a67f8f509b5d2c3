import { type AnyEvent, eventTypes, isEventType } from '@hireflow/contracts';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SqlDatabase } from '../sql.ts';
import type { TraceCarrier } from '../trace.ts';
import { readEventLog } from './store.ts';

/** The largest page the route serves: events are at most ~25 KB each. */
export const EVENT_LOG_MAX_PAGE = 500;

/** One published event as a replay sends it again: the CloudEvent, its trace context, its place in the log. */
export interface LoggedEvent {
  position: string;
  event: AnyEvent;
  trace: TraceCarrier;
}

/** A page of `GET /internal/events`; `nextCursor` is null on the last page. */
export interface EventLogPage {
  items: LoggedEvent[];
  nextCursor: string | null;
}

const cursor = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,18})$/, 'is not a valid cursor')
  .refine((value) => BigInt(value) <= 9_223_372_036_854_775_807n, { message: 'is not a valid cursor' });

const eventLogQuery = z.strictObject({
  types: z
    .string()
    .optional()
    .transform((value) => (value ? value.split(',').map((t) => t.trim()) : []))
    .refine((types) => types.every(isEventType), {
      message: `must be event types of the catalog, separated by commas (${eventTypes.join(', ')})`,
    }),
  since: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time with an offset' }).optional(),
  until: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time with an offset' }).optional(),
  after: cursor.optional(),
  limit: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, `must be between 1 and ${EVENT_LOG_MAX_PAGE}`)
    .max(EVENT_LOG_MAX_PAGE, `must be between 1 and ${EVENT_LOG_MAX_PAGE}`)
    .default(100),
});

/** A Fastify server with zod route schemas, as @hireflow/runtime's `createHttpServer` makes. */
export type AdminServer = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * `GET /internal/events?types=&since=&until=&after=&limit=` on a producer's
 * admin listener (behind ADMIN_TOKEN when set, never on the service port):
 * the events it published, in publication order, keyset-paged by position.
 * `pnpm replay` reads the producers' logs through it, so no tool needs
 * another service's database credentials (docs/replay.md).
 */
export function registerEventLogRoutes(admin: AdminServer, options: { orm: SqlDatabase }): void {
  admin.get(
    '/internal/events',
    {
      schema: {
        summary: 'Published events in publication order, for replays (admin listener only)',
        querystring: eventLogQuery,
      },
    },
    async (request): Promise<EventLogPage> => {
      const { types, since, until, after, limit } = request.query;
      const rows = await readEventLog(options.orm.em.fork(), {
        types,
        since: since ? new Date(since) : undefined,
        until: until ? new Date(until) : undefined,
        after,
        limit,
      });
      const items = rows.map((row) => ({
        position: row.position,
        event: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as AnyEvent,
        trace: {
          ...(row.traceparent ? { traceparent: row.traceparent } : {}),
          ...(row.tracestate ? { tracestate: row.tracestate } : {}),
          ...(row.baggage ? { baggage: row.baggage } : {}),
        },
      }));
      return { items, nextCursor: items.length === limit ? items.at(-1)!.position : null };
    },
  );
}
