// The matches module's data access: every statement on posting_match, and
// the match counts of postings.
import type { Sql } from '@hireflow/db';

export interface NewMatch {
  id: string;
  tenantId: string;
  postingId: string;
  candidateId: string;
  score: number;
}

/**
 * Inserts the pairs not found before, all at `foundAt`; returns those that
 * were new. A pair is unique: a computation that finds it again adds nothing.
 */
export async function insertMatches(tx: Sql, matches: NewMatch[], foundAt: Date): Promise<NewMatch[]> {
  if (matches.length === 0) return [];
  const rows = await tx.execute<{ id: string }[]>(
    `INSERT INTO posting_match (id, tenant_id, posting_id, candidate_id, score, found_at)
     SELECT m.id, m.tenant_id, m.posting_id, m.candidate_id, m.score, ?
       FROM jsonb_to_recordset(?::jsonb)
         AS m(id uuid, tenant_id uuid, posting_id uuid, candidate_id uuid, score double precision)
     ON CONFLICT (posting_id, candidate_id) DO NOTHING
     RETURNING id`,
    [
      foundAt,
      JSON.stringify(
        matches.map((m) => ({
          id: m.id,
          tenant_id: m.tenantId,
          posting_id: m.postingId,
          candidate_id: m.candidateId,
          score: m.score,
        })),
      ),
    ],
  );
  const inserted = new Set(rows.map((r) => r.id));
  return matches.filter((m) => inserted.has(m.id));
}

/**
 * Adds new matches to open postings' counts and stamps the computation: its
 * time, strictly after the posting's previous one, so the job board applies
 * each job.matched.v1 in order even within one millisecond.
 */
export async function addToMatchCounts(
  tx: Sql,
  tenantId: string,
  added: Map<string, number>,
  computedAt: Date,
): Promise<{ id: string; match_count: number; computed_at: Date }[]> {
  if (added.size === 0) return [];
  return tx.execute(
    `UPDATE posting p
        SET match_count = p.match_count + a.added,
            computed_at = greatest(?::timestamptz, p.computed_at + interval '1 millisecond'),
            updated_at = now()
       FROM jsonb_to_recordset(?::jsonb) AS a(id uuid, added integer)
      WHERE p.id = a.id AND p.tenant_id = ? AND p.status = 'open'
     RETURNING p.id, p.match_count, p.computed_at`,
    [computedAt, JSON.stringify([...added].map(([id, n]) => ({ id, added: n }))), tenantId],
  );
}

/** Sets a posting's count after its first computation. */
export async function setMatchCount(tx: Sql, id: string, count: number): Promise<void> {
  await tx.execute('UPDATE posting SET match_count = ? WHERE id = ?', [count, id]);
}

interface MatchRow {
  id: string;
  candidate_id: string;
  score: number;
  found_at: Date;
}

/** A posting's matches, best score first, then earliest found, keyset-paged after `after`. */
export async function matchesOfPosting(
  em: Sql,
  postingId: string,
  page: { limit: number; after?: { score: number; foundAt: string; id: string } | undefined },
): Promise<MatchRow[]> {
  const params: unknown[] = [postingId];
  let keyset = '';
  if (page.after) {
    const { score, foundAt, id } = page.after;
    keyset = `AND (score < ? OR (score = ? AND found_at > ?) OR (score = ? AND found_at = ? AND id > ?))`;
    params.push(score, score, foundAt, score, foundAt, id);
  }
  params.push(page.limit);
  return em.execute<MatchRow[]>(
    `SELECT id, candidate_id, score, found_at FROM posting_match
      WHERE posting_id = ? ${keyset}
      ORDER BY score DESC, found_at, id
      LIMIT ?`,
    params,
  );
}

/** A posting's matching state, for the internal API. */
export async function postingState(
  em: Sql,
  postingId: string,
): Promise<
  { id: string; tenant_id: string; status: string; match_count: number; computed_at: Date | null } | undefined
> {
  const rows = await em.execute<
    { id: string; tenant_id: string; status: string; match_count: number; computed_at: Date | null }[]
  >('SELECT id, tenant_id, status, match_count, computed_at FROM posting WHERE id = ?', [postingId]);
  return rows[0];
}
