// A computation: embed outside any lock, then one transaction under the
// tenant's lock that syncs the worker's index from the tables, searches,
// inserts the new matches, and writes their events through the outbox. The
// lock serialises a tenant's computations across every worker, and each
// starts from the committed rows: of a posting and a candidate arriving at
// the same moment, the second computation always sees the first's side, and
// the unique pair keeps any match from being found twice.
import { randomUUID } from 'node:crypto';
import type { EventLane } from '@hireflow/contracts';
import type { Database, Sql } from '@hireflow/db';
import { enqueueEvents, PermanentError } from '@hireflow/messaging';
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import type { EmbeddedProfile, ProfileEmbedder } from '../embedding/profile.ts';
import {
  findCandidate,
  findPosting,
  lockTenant,
  markCandidateComputed,
  openPosting,
  storeCandidateVector,
} from '../profiles/store.ts';
import { clampScore, matchesFound, postingMatched } from './events.ts';
import { addToMatchCounts, insertMatches, type NewMatch, setMatchCount } from './store.ts';
import { syncTenant } from './sync.ts';
import type { TenantCache } from './tenant-cache.ts';

const tracer = trace.getTracer('@hireflow/matching');

export interface MatchSettings {
  threshold: number;
  /** Candidates a posting's first computation keeps at most. */
  limit: number;
  cosineWeight: number;
}

export interface MatchingContext {
  orm: Database;
  cache: TenantCache;
  embedder: ProfileEmbedder;
  settings: MatchSettings;
  now?: () => Date;
}

/** What a computation did (no names, no emails: ids and counts only). */
export interface Computation {
  kind: 'posting' | 'candidate';
  tenantId: string;
  id: string;
  /** computed: it ran; skipped: nothing to do (already computed, or closed). */
  outcome: 'computed' | 'skipped';
  newMatches: number;
  /** job.matched.v1 events written. */
  postingsChanged: number;
}

/** A posting's first computation: its best candidates above the threshold, at most `limit`. */
export async function computePosting(
  ctx: MatchingContext,
  tenantId: string,
  postingId: string,
  lane: EventLane = 'interactive',
): Promise<Computation> {
  return span(
    'match posting',
    { 'hireflow.tenant_id': tenantId, 'hireflow.posting_id': postingId },
    async (s) => {
      const result: Computation = {
        kind: 'posting',
        tenantId,
        id: postingId,
        outcome: 'skipped',
        newMatches: 0,
        postingsChanged: 0,
      };
      const row = await findPosting(ctx.orm.em.fork(), tenantId, postingId);
      if (!row) throw new PermanentError(`posting ${postingId} of tenant ${tenantId} is unknown to matching`);
      if (row.status !== 'pending') return result;
      const profile = await embed('posting', ctx.embedder, () => ctx.embedder.embedPostings([row]));
      return ctx.cache.use(tenantId, (state) =>
        ctx.orm.em.fork().transactional(async (tx) => {
          await lockTenant(tx, tenantId);
          // Closed, or computed by another delivery, while this one embedded.
          if ((await findPosting(tx, tenantId, postingId))?.status !== 'pending') return result;
          await syncTenant(tx, state, ctx.embedder);
          const hits = state.candidates.search(profile, ctx.settings);
          const computedAt = now(ctx);
          await openPosting(tx, tenantId, postingId, profile, computedAt);
          const found = await insertMatches(
            tx,
            hits.map((hit) => ({
              id: randomUUID(),
              tenantId,
              postingId,
              candidateId: hit.id,
              score: clampScore(hit.score),
            })),
            computedAt,
          );
          await setMatchCount(tx, postingId, found.length);
          await enqueueEvents(tx, [
            ...matchesFound(found, computedAt, lane),
            // Always, even with no match: the posting leaves `processing`.
            postingMatched({ tenantId, postingId, matchCount: found.length, computedAt }, lane),
          ]);
          s.setAttributes({
            'matching.candidates': state.candidates.size,
            'matching.matches.new': found.length,
          });
          return { ...result, outcome: 'computed', newMatches: found.length, postingsChanged: 1 } as const;
        }),
      );
    },
  );
}

/**
 * A candidate joins every open posting it fits; each posting that gains a
 * match gets a job.matched.v1. Its vector enters the tables (and the
 * indexes) in this same transaction, so the postings computed before it are
 * exactly those it searches: those computed after found it themselves.
 */
export async function computeCandidate(
  ctx: MatchingContext,
  tenantId: string,
  candidateId: string,
  lane: EventLane = 'interactive',
): Promise<Computation> {
  const attributes = { 'hireflow.tenant_id': tenantId, 'hireflow.candidate_id': candidateId };
  return span('match candidate', attributes, async (s) => {
    const result: Computation = {
      kind: 'candidate',
      tenantId,
      id: candidateId,
      outcome: 'skipped',
      newMatches: 0,
      postingsChanged: 0,
    };
    const row = await findCandidate(ctx.orm.em.fork(), tenantId, candidateId);
    if (!row)
      throw new PermanentError(`candidate ${candidateId} of tenant ${tenantId} is unknown to matching`);
    if (row.computed_at) return result;
    const profile = await embed('candidate', ctx.embedder, () => ctx.embedder.embedCandidates([row]));
    return ctx.cache.use(tenantId, (state) =>
      ctx.orm.em.fork().transactional(async (tx) => {
        await lockTenant(tx, tenantId);
        const current = await findCandidate(tx, tenantId, candidateId);
        if (!current || current.computed_at) return result;
        await storeCandidateVector(tx, tenantId, candidateId, profile);
        await syncTenant(tx, state, ctx.embedder);
        const computedAt = now(ctx);
        const fits = state.postings.search(profile, {
          threshold: ctx.settings.threshold,
          cosineWeight: ctx.settings.cosineWeight,
        });
        const found = await insertMatches(
          tx,
          fits.map((hit) => ({
            id: randomUUID(),
            tenantId,
            postingId: hit.id,
            candidateId,
            score: clampScore(hit.score),
          })),
          computedAt,
        );
        const changed = await recordCandidateMatches(tx, tenantId, found, computedAt, lane);
        await markCandidateComputed(tx, candidateId, computedAt);
        s.setAttributes({
          'matching.postings': state.postings.size,
          'matching.matches.new': found.length,
          'matching.postings_changed': changed,
        });
        return {
          ...result,
          outcome: 'computed',
          newMatches: found.length,
          postingsChanged: changed,
        } as const;
      }),
    );
  });
}

async function recordCandidateMatches(
  tx: Sql,
  tenantId: string,
  found: NewMatch[],
  foundAt: Date,
  lane: EventLane,
): Promise<number> {
  const added = new Map<string, number>();
  for (const match of found) added.set(match.postingId, (added.get(match.postingId) ?? 0) + 1);
  const postings = await addToMatchCounts(tx, tenantId, added, foundAt);
  await enqueueEvents(tx, [
    ...matchesFound(found, foundAt, lane),
    ...postings.map((posting) =>
      postingMatched(
        {
          tenantId,
          postingId: posting.id,
          matchCount: posting.match_count,
          computedAt: new Date(posting.computed_at),
        },
        lane,
      ),
    ),
  ]);
  return postings.length;
}

function now(ctx: MatchingContext): Date {
  return ctx.now?.() ?? new Date();
}

async function embed(
  kind: 'posting' | 'candidate',
  embedder: ProfileEmbedder,
  run: () => Promise<EmbeddedProfile[]>,
): Promise<EmbeddedProfile> {
  return span(`embed ${kind}`, { 'matching.model_id': embedder.id }, async () => (await run())[0]!);
}

async function span<T>(
  name: string,
  attributes: Record<string, string>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (s) => {
    try {
      return await work(s);
    } catch (error) {
      s.recordException(error as Error);
      s.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      s.end();
    }
  });
}
