import type { EntityManager } from '@hireflow/db';
import { decodeCursor, encodeCursor } from '../../http/pagination.ts';

interface MatchRow {
  match_id: string;
  job_id: string;
  candidate_id: string;
  score: number;
  found_at: Date;
  candidate_name: string | null;
  candidate_headline: string | null;
  candidate_location: string | null;
  job_title: string | null;
  job_status: string | null;
}

/**
 * A page of the match read model (fed by `match.found.v1`), best score first,
 * for one posting or one candidate of the tenant. The keyset cursor carries
 * the last score and match id.
 */
export async function listMatches(
  em: EntityManager,
  filter: { tenantId: string; jobId?: string; candidateId?: string },
  query: { limit: number; cursor?: string | undefined },
) {
  const after = decodeCursor(query.cursor, (at) => {
    // Passed to Postgres as a number, so any finite score in [0, 1] is safe.
    const score = Number(at);
    return at.trim() !== '' && Number.isFinite(score) && score >= 0 && score <= 1;
  });
  const column = filter.jobId ? 'm.job_id' : 'm.candidate_id';
  const params: unknown[] = [filter.tenantId, filter.jobId ?? filter.candidateId];
  let keyset = '';
  if (after) {
    keyset = 'AND (m.score < ? OR (m.score = ? AND m.match_id > ?))';
    params.push(Number(after.at), Number(after.at), after.id);
  }
  params.push(query.limit + 1);
  const rows = await em.execute<MatchRow[]>(
    `SELECT m.match_id, m.job_id, m.candidate_id, m.score, m.found_at,
            c.name AS candidate_name, c.headline AS candidate_headline, c.location AS candidate_location,
            j.title AS job_title, j.status AS job_status
       FROM job_match m
       LEFT JOIN candidate c ON c.id = m.candidate_id AND c.tenant_id = m.tenant_id
       LEFT JOIN job_posting j ON j.id = m.job_id AND j.tenant_id = m.tenant_id
      WHERE m.tenant_id = ? AND ${column} = ? ${keyset}
      ORDER BY m.score DESC, m.match_id ASC
      LIMIT ?`,
    params,
  );
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return {
    items: items.map((r) => ({
      matchId: r.match_id,
      jobId: r.job_id,
      candidateId: r.candidate_id,
      score: Number(r.score),
      foundAt: new Date(r.found_at).toISOString(),
      candidate: r.candidate_name
        ? {
            name: r.candidate_name,
            headline: r.candidate_headline ?? '',
            location: r.candidate_location ?? '',
          }
        : null,
      job: r.job_title ? { title: r.job_title, status: r.job_status ?? '' } : null,
    })),
    nextCursor:
      rows.length > query.limit && last ? encodeCursor({ at: String(last.score), id: last.match_id }) : null,
  };
}
