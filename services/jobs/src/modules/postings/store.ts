import { executePrepared, type Sql, toDate, toDateOrNull } from '@hireflow/db';
import type { MediaImage } from '../../db/media-image.ts';
import { newestFirstRows } from '../../db/store.ts';
import { decodeMatchCursor, encodeMatchCursor, keysetAfter, newestFirstPage } from '../../http/pagination.ts';

// The postings module's data access: every statement on job_posting and
// job_match lives here; routes, services and consumers call these. The
// tables keep the names they were created with (job_posting, job_match.job_id):
// a column rename is not safe while two versions run (docs/decisions.md,
// "Say posting"), so the SQL below maps them to postingId.

/** A new posting's values (`Posting` below: what it holds once processed, matched or closed). */
export type PostingRow = Omit<Posting, 'status' | 'matchCount' | 'logo' | 'closedAt'>;

/**
 * Inserts the posting and, in the same statement, the outbox row that
 * announces it (`outbox` is `outboxInsertStatement(event, { from: 'posting' })`): a
 * CTE writes both or neither in one round trip. A posting whose id exists
 * already is left as it is and nothing is emitted: false.
 */
export async function insertPostingWithEvent(
  em: Sql,
  row: PostingRow,
  outbox: { sql: string; params: unknown[] },
): Promise<boolean> {
  // A named prepared statement: parsed and planned once per connection, not per request.
  const rows = await executePrepared<{ event_id: string }>(
    em,
    `WITH posting AS (
       INSERT INTO job_posting (id, tenant_id, title, description, skills, location, remote, contact_email,
                                status, posted_at, close_at, updated_at)
       VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, 'processing', ?, ?, ?)
       ON CONFLICT (id) DO NOTHING
       RETURNING id
     )
     ${outbox.sql}
     RETURNING event_id`,
    [
      row.id,
      row.tenantId,
      row.title,
      row.description,
      JSON.stringify(row.skills),
      row.location,
      row.remote,
      row.contactEmail,
      row.postedAt,
      row.closeAt,
      row.postedAt,
      ...outbox.params,
    ],
  );
  return rows.length > 0;
}

export type PostingStatus = 'processing' | 'matched' | 'closed';

/** A posting as the API shows it (`toPostingView`). */
export interface Posting {
  id: string;
  tenantId: string;
  status: PostingStatus;
  title: string;
  description: string;
  skills: string[];
  location: string;
  remote: boolean;
  contactEmail: string;
  matchCount: number | null;
  logo: MediaImage | null;
  postedAt: Date;
  closeAt: Date;
  closedAt: Date | null;
}

interface PostingRecord {
  id: string;
  tenant_id: string;
  status: PostingStatus;
  title: string;
  description: string;
  skills: string[];
  location: string;
  remote: boolean;
  contact_email: string;
  match_count: number | null;
  logo: MediaImage | null;
  posted_at: string;
  close_at: string;
  closed_at: string | null;
}

const POSTING_COLUMNS = `id, tenant_id, status, title, description, skills, location, remote, contact_email,
       match_count, logo, posted_at, close_at, closed_at`;

const postingOf = (r: PostingRecord): Posting => ({
  id: r.id,
  tenantId: r.tenant_id,
  status: r.status,
  title: r.title,
  description: r.description,
  skills: r.skills,
  location: r.location,
  remote: r.remote,
  contactEmail: r.contact_email,
  matchCount: r.match_count,
  logo: r.logo,
  postedAt: toDate(r.posted_at),
  closeAt: toDate(r.close_at),
  closedAt: toDateOrNull(r.closed_at),
});

export async function findPosting(em: Sql, tenantId: string, id: string): Promise<Posting | null> {
  const rows = await em.execute<PostingRecord[]>(
    `SELECT ${POSTING_COLUMNS} FROM job_posting WHERE id = ? AND tenant_id = ? LIMIT 1`,
    [id, tenantId],
  );
  return rows[0] ? postingOf(rows[0]) : null;
}

/** The posting, locked for update until the transaction ends (`tx` must be in one). */
export async function lockPosting(tx: Sql, tenantId: string, id: string): Promise<Posting | null> {
  // As MikroORM's pessimistic lock: outside a transaction the lock would end with the statement.
  if (!tx.isInTransaction()) throw new Error('lockPosting: an open transaction is required');
  const rows = await tx.execute<PostingRecord[]>(
    `SELECT ${POSTING_COLUMNS} FROM job_posting WHERE id = ? AND tenant_id = ? LIMIT 1 FOR UPDATE`,
    [id, tenantId],
  );
  return rows[0] ? postingOf(rows[0]) : null;
}

/** Closes a posting (locked by `lockPosting` in the same transaction) at `at`. */
export async function markPostingClosed(tx: Sql, tenantId: string, id: string, at: Date): Promise<void> {
  await tx.execute(
    `UPDATE job_posting SET status = 'closed', closed_at = ?, updated_at = ? WHERE id = ? AND tenant_id = ?`,
    [at, at, id, tenantId],
  );
}

export async function postingExists(em: Sql, tenantId: string, id: string): Promise<boolean> {
  const rows = await em.execute<{ found: boolean }[]>(
    'SELECT EXISTS (SELECT 1 FROM job_posting WHERE id = ? AND tenant_id = ?) AS found',
    [id, tenantId],
  );
  return rows[0]?.found === true;
}

/** A page of the tenant's postings, newest first (keyset on posted_at, id). */
export async function postingsPage(
  em: Sql,
  tenantId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<{ items: Posting[]; nextCursor: string | null }> {
  const source = { table: 'job_posting', columns: POSTING_COLUMNS, timeColumn: 'posted_at' };
  const rows = await newestFirstRows<PostingRecord>(
    em,
    source,
    tenantId,
    keysetAfter(query.cursor),
    query.limit,
  );
  return newestFirstPage(rows.map(postingOf), query.limit, (p) => ({ at: p.postedAt, id: p.id }));
}

/** Open postings past their close time, oldest first. */
export function overduePostings(em: Sql, limit: number) {
  return em.execute<{ id: string; tenant_id: string }[]>(
    `SELECT id, tenant_id FROM job_posting WHERE status <> 'closed' AND close_at <= now() ORDER BY close_at LIMIT ?`,
    [limit],
  );
}

/**
 * Applies a match computation, never backwards: a closed posting stays
 * closed, and an older computation arriving late does not replace a newer
 * one. True when the posting changed.
 */
export async function applyMatched(
  em: Sql,
  change: { postingId: string; tenantId: string; matchCount: number; computedAt: string },
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE job_posting
        SET status = 'matched', match_count = ?, matches_computed_at = ?, updated_at = now()
      WHERE id = ? AND tenant_id = ? AND status <> 'closed'
        AND (matches_computed_at IS NULL OR matches_computed_at < ?)
      RETURNING id`,
    [change.matchCount, change.computedAt, change.postingId, change.tenantId, change.computedAt],
  );
  return rows.length > 0;
}

/**
 * Records a match. A recomputation may find the same pair again under a new
 * match id: the newest finding wins, whatever order the events arrive in.
 * Its time is kept to the millisecond, as the listing's cursor carries it.
 */
export async function upsertMatch(
  em: Sql,
  match: {
    matchId: string;
    tenantId: string;
    postingId: string;
    candidateId: string;
    score: number;
    foundAt: string;
  },
): Promise<void> {
  await em.execute(
    `INSERT INTO job_match (match_id, tenant_id, job_id, candidate_id, score, found_at)
     VALUES (?, ?, ?, ?, ?, date_trunc('milliseconds', ?::timestamptz))
     ON CONFLICT (job_id, candidate_id) DO UPDATE
       SET score = EXCLUDED.score, match_id = EXCLUDED.match_id, found_at = EXCLUDED.found_at
       WHERE job_match.found_at <= EXCLUDED.found_at`,
    [match.matchId, match.tenantId, match.postingId, match.candidateId, match.score, match.foundAt],
  );
}

/**
 * Shows a processed upload as the posting's logo, in one conditional
 * statement: only a posting of the event's tenant, and only an upload newer
 * than the logo shown (ties broken by upload id), so a late or duplicated
 * event never replaces a newer logo. True when the logo changed.
 */
export async function setLogo(
  em: Sql,
  change: { tenantId: string; postingId: string; logo: MediaImage; uploadedAt: string },
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE job_posting SET logo = ?::jsonb, logo_uploaded_at = ?, updated_at = now()
      WHERE id = ? AND tenant_id = ?
        AND (logo_uploaded_at IS NULL OR (logo_uploaded_at, logo->>'uploadId') < (?::timestamptz, ?))
      RETURNING id`,
    [
      JSON.stringify(change.logo),
      change.uploadedAt,
      change.postingId,
      change.tenantId,
      change.uploadedAt,
      change.logo.uploadId,
    ],
  );
  return rows.length > 0;
}

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
 * A page of the match read model (fed by `match.found.v1`), best score
 * first, ties by the time each was found (then the match id), for one
 * posting or one candidate of the tenant. The keyset cursor carries the last
 * item's score, time and match id.
 */
export async function matchesPage(
  em: Sql,
  filter: { tenantId: string; postingId?: string; candidateId?: string },
  query: { limit: number; cursor?: string | undefined },
) {
  const after = decodeMatchCursor(query.cursor);
  const column = filter.postingId ? 'm.job_id' : 'm.candidate_id';
  const params: unknown[] = [filter.tenantId, filter.postingId ?? filter.candidateId];
  let keyset = '';
  if (after) {
    keyset = `AND (m.score < ? OR (m.score = ? AND (m.found_at > ? OR (m.found_at = ? AND m.match_id > ?))))`;
    params.push(after.score, after.score, after.foundAt, after.foundAt, after.id);
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
      ORDER BY m.score DESC, m.found_at ASC, m.match_id ASC
      LIMIT ?`,
    params,
  );
  const items = rows.slice(0, query.limit).map(toMatchView);
  const last = items.at(-1);
  return {
    items,
    nextCursor:
      rows.length > query.limit && last
        ? encodeMatchCursor({ score: last.score, foundAt: last.foundAt, id: last.matchId })
        : null,
  };
}

/** A match as the public API shows it (`jobId`, `job`: the API's names for the posting). */
function toMatchView(r: MatchRow) {
  return {
    matchId: r.match_id,
    jobId: r.job_id,
    candidateId: r.candidate_id,
    score: Number(r.score),
    foundAt: new Date(r.found_at).toISOString(),
    candidate: r.candidate_name
      ? { name: r.candidate_name, headline: r.candidate_headline ?? '', location: r.candidate_location ?? '' }
      : null,
    job: r.job_title ? { title: r.job_title, status: r.job_status ?? '' } : null,
  };
}
