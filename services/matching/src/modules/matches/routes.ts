import type { Database } from '@hireflow/db';
import { HttpProblem, type HttpServer, pageLimit, problemSchema } from '@hireflow/runtime';
import { z } from 'zod';
import { matchesOfPosting, postingState } from './store.ts';

// The keyset of the listing's order (score desc, found_at, id), opaque to the caller.
const cursorSchema = z.tuple([z.number().min(0).max(1), z.iso.datetime({ offset: true }), z.uuid()]);

const cursor = z
  .string()
  .max(200)
  .transform((value, ctx) => {
    try {
      const [score, foundAt, id] = cursorSchema.parse(
        JSON.parse(Buffer.from(value, 'base64url').toString('utf8')),
      );
      return { score, foundAt, id };
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not a cursor this API returned' });
      return z.NEVER;
    }
  });

const listQuery = z.strictObject({
  postingId: z.uuid({ message: 'must be a UUID' }),
  limit: pageLimit,
  cursor: cursor.optional(),
});

const match = z.object({
  matchId: z.uuid(),
  candidateId: z.uuid(),
  score: z.number(),
  foundAt: z.string(),
});

const listing = z.object({
  postingId: z.uuid(),
  tenantId: z.uuid(),
  status: z.enum(['pending', 'open', 'closed']).describe('pending: its first computation has not run'),
  matchCount: z.number().int(),
  computedAt: z.string().nullable().describe('The last computation that changed its matches'),
  items: z.array(match),
  nextCursor: z.string().nullable(),
});

/**
 * Internal: served on the admin listener only (docs/design.md, "Listeners"),
 * behind ADMIN_TOKEN when set. A posting's matches as matching found them,
 * best first (ties: earliest found), for support tooling and tests.
 */
export function registerInternalRoutes(admin: HttpServer, options: { orm: Database }): void {
  admin.get(
    '/internal/matches',
    {
      schema: {
        summary: "A posting's matches, best score first (admin listener only)",
        querystring: listQuery,
        response: { 200: listing, 400: problemSchema, 404: problemSchema },
      },
    },
    async (request) => {
      const { postingId, limit, cursor: after } = request.query;
      const em = options.orm.em.fork();
      const posting = await postingState(em, postingId);
      if (!posting) throw new HttpProblem(404, 'NOT_FOUND', `No posting ${postingId} in matching`);
      const rows = await matchesOfPosting(em, postingId, { limit: limit + 1, after });
      const items = rows.slice(0, limit).map((r) => ({
        matchId: r.id,
        candidateId: r.candidate_id,
        score: Number(r.score),
        foundAt: new Date(r.found_at).toISOString(),
      }));
      const last = items.at(-1);
      return {
        postingId,
        tenantId: posting.tenant_id,
        status: posting.status as 'pending' | 'open' | 'closed',
        matchCount: posting.match_count,
        computedAt: posting.computed_at ? new Date(posting.computed_at).toISOString() : null,
        items,
        nextCursor:
          rows.length > limit && last
            ? Buffer.from(JSON.stringify([last.score, last.foundAt, last.matchId])).toString('base64url')
            : null,
      };
    },
  );
}
