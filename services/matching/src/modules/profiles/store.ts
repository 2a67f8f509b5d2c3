// The profiles module's data access: every statement on posting and
// candidate rows, and the tenant lock that orders their changes.
import type { Sql } from '@hireflow/db';
import type { EmbeddedProfile } from '../embedding/profile.ts';
import { encodeVector } from './vectors.ts';

// The class id of the tenant locks (pg_advisory_xact_lock's two-int form, a
// key space apart from the single-bigint locks of libs/idempotency and
// migrations): "matc".
const TENANT_LOCK_CLASS = 0x6d617463;

/**
 * Takes the tenant's lock until the transaction ends. Every change that
 * draws from change_seq holds it, so within a tenant the sequence order is
 * the commit order, and a computation holding it sees every committed change
 * below the values it draws.
 */
export async function lockTenant(tx: Sql, tenantId: string): Promise<void> {
  await tx.execute('SELECT pg_advisory_xact_lock(?, hashtext(?))', [TENANT_LOCK_CLASS, tenantId]);
}

/** A job.posted.v1 as matching keeps it, to be embedded and computed. False when the posting was known. */
export async function insertPosting(
  em: Sql,
  posting: {
    postingId: string;
    tenantId: string;
    title: string;
    description: string;
    skills: string[];
    postedAt: string;
    eventId: string;
  },
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `INSERT INTO posting (id, tenant_id, status, title, description, skills, posted_at, event_id)
     VALUES (?, ?, 'pending', ?, ?, ?::jsonb, ?, ?)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      posting.postingId,
      posting.tenantId,
      posting.title,
      posting.description,
      JSON.stringify(posting.skills),
      posting.postedAt,
      posting.eventId,
    ],
  );
  return rows.length > 0;
}

/** A candidate.registered.v1, without name or email. False when the candidate was known. */
export async function insertCandidate(
  em: Sql,
  candidate: { candidateId: string; tenantId: string; headline: string; skills: string[]; eventId: string },
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `INSERT INTO candidate (id, tenant_id, headline, skills, event_id)
     VALUES (?, ?, ?, ?::jsonb, ?)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      candidate.candidateId,
      candidate.tenantId,
      candidate.headline,
      JSON.stringify(candidate.skills),
      candidate.eventId,
    ],
  );
  return rows.length > 0;
}

/**
 * Closes a posting for good (under the tenant lock); its vector goes, since
 * nothing searches it again. A job.closed.v1 that arrives before its
 * job.posted.v1 leaves a closed row, which the posting then finds: it is
 * never computed. False when nothing changed.
 */
export async function closePosting(
  tx: Sql,
  close: { postingId: string; tenantId: string; closedAt: string },
): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `INSERT INTO posting (id, tenant_id, status, closed_at, seq)
     VALUES (?, ?, 'closed', ?, nextval('change_seq'))
     ON CONFLICT (id) DO UPDATE
       SET status = 'closed', closed_at = EXCLUDED.closed_at, seq = EXCLUDED.seq, vector = NULL,
           updated_at = now()
       WHERE posting.tenant_id = EXCLUDED.tenant_id AND posting.status <> 'closed'
     RETURNING id`,
    [close.postingId, close.tenantId, close.closedAt],
  );
  return rows.length > 0;
}

export interface PostingRow {
  id: string;
  status: 'pending' | 'open' | 'closed';
  title: string;
  description: string;
  skills: string[];
}

export async function findPosting(em: Sql, tenantId: string, id: string): Promise<PostingRow | undefined> {
  const rows = await em.execute<PostingRow[]>(
    'SELECT id, status, title, description, skills FROM posting WHERE tenant_id = ? AND id = ?',
    [tenantId, id],
  );
  return rows[0];
}

export interface CandidateRow {
  id: string;
  headline: string;
  skills: string[];
  computed_at: Date | null;
}

export async function findCandidate(
  em: Sql,
  tenantId: string,
  id: string,
): Promise<CandidateRow | undefined> {
  const rows = await em.execute<CandidateRow[]>(
    `SELECT id, headline, skills, computed_at
       FROM candidate WHERE tenant_id = ? AND id = ?`,
    [tenantId, id],
  );
  return rows[0];
}

/**
 * Stores a candidate's vector under the next sequence value (tenant lock
 * held), in the transaction that computes the candidate: a candidate is in
 * the index from its own computation on, and every posting computed before
 * it is one its computation searches.
 */
export async function storeCandidateVector(
  tx: Sql,
  tenantId: string,
  id: string,
  profile: EmbeddedProfile,
): Promise<void> {
  await tx.execute(
    `WITH next AS (SELECT nextval('change_seq') AS seq)
     UPDATE candidate
        SET model_id = ?, vector = ?, canonical_skills = ?::jsonb,
            seq = next.seq, updated_at = now()
       FROM next
      WHERE tenant_id = ? AND id = ?`,
    [profile.modelId, encodeVector(profile.vector), JSON.stringify(profile.skills), tenantId, id],
  );
}

export async function markCandidateComputed(tx: Sql, id: string, at: Date): Promise<void> {
  await tx.execute('UPDATE candidate SET computed_at = ?, updated_at = now() WHERE id = ?', [at, id]);
}

/**
 * Opens a posting after its first computation (tenant lock held): its
 * vector under the next sequence value, so every worker's index adds it to
 * the postings a new candidate is searched against.
 */
export async function openPosting(
  tx: Sql,
  tenantId: string,
  id: string,
  profile: EmbeddedProfile,
  computedAt: Date,
): Promise<void> {
  const rows = await tx.execute<{ id: string }[]>(
    `WITH next AS (SELECT nextval('change_seq') AS seq)
     UPDATE posting
        SET status = 'open', model_id = ?, vector = ?, canonical_skills = ?::jsonb,
            seq = next.seq, computed_at = ?, updated_at = now()
       FROM next
      WHERE tenant_id = ? AND id = ? AND status = 'pending'
     RETURNING posting.id`,
    [profile.modelId, encodeVector(profile.vector), JSON.stringify(profile.skills), computedAt, tenantId, id],
  );
  if (rows.length === 0) throw new Error(`posting ${id} is not pending: its computation ran twice`);
}

/** A changed row as the index reads it. */
export interface ChangeRow {
  kind: 'candidate' | 'posting';
  id: string;
  seq: string;
  status: 'pending' | 'open' | 'closed' | null;
  model_id: string | null;
  vector: Buffer | null;
  canonical_skills: string[] | null;
}

/** The tenant's changes after `afterSeq`, in sequence order, at most `limit`. */
export function changesSince(
  em: Sql,
  tenantId: string,
  afterSeq: bigint,
  limit: number,
): Promise<ChangeRow[]> {
  const after = String(afterSeq);
  return em.execute<ChangeRow[]>(
    `(SELECT 'candidate' AS kind, id, seq, NULL AS status, model_id, vector, canonical_skills
        FROM candidate WHERE tenant_id = ? AND seq > ? AND vector IS NOT NULL ORDER BY seq LIMIT ?)
     UNION ALL
     (SELECT 'posting', id, seq, status, model_id, vector, canonical_skills
        FROM posting WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?)
     ORDER BY seq LIMIT ?`,
    [tenantId, after, limit, tenantId, after, limit, limit],
  );
}

/** The texts of rows to re-embed (a stored vector of another model). */
export function textsOf(
  em: Sql,
  kind: 'candidate' | 'posting',
  ids: string[],
): Promise<{ id: string; title: string; description: string; headline: string; skills: string[] }[]> {
  return kind === 'candidate'
    ? em.execute(
        `SELECT id, '' AS title, '' AS description, headline, skills FROM candidate WHERE id IN (?)`,
        [ids],
      )
    : em.execute(`SELECT id, title, description, '' AS headline, skills FROM posting WHERE id IN (?)`, [ids]);
}

/**
 * Replaces a vector by the running model's. Not a change the other workers
 * must learn (their model re-embeds it as they load it), so no new sequence
 * value: during a rolling deploy, two models never make each other reload.
 */
export async function storeReembedded(
  em: Sql,
  kind: 'candidate' | 'posting',
  id: string,
  profile: EmbeddedProfile,
): Promise<void> {
  await em.execute(
    `UPDATE ${kind === 'candidate' ? 'candidate' : 'posting'}
        SET model_id = ?, vector = ?, canonical_skills = ?::jsonb, updated_at = now()
      WHERE id = ?`,
    [profile.modelId, encodeVector(profile.vector), JSON.stringify(profile.skills), id],
  );
}

/** Postings and candidates still uncomputed `olderThanMs` after they arrived, oldest first. */
export function uncomputed(
  em: Sql,
  options: { olderThanMs: number; limit: number },
): Promise<{ kind: 'candidate' | 'posting'; id: string; tenant_id: string; event_id: string }[]> {
  return em.execute(
    `(SELECT 'posting' AS kind, id, tenant_id, event_id, created_at FROM posting
       WHERE status = 'pending' AND created_at < now() - ? * interval '1 millisecond'
       ORDER BY created_at LIMIT ?)
     UNION ALL
     (SELECT 'candidate', id, tenant_id, event_id, created_at FROM candidate
       WHERE computed_at IS NULL AND created_at < now() - ? * interval '1 millisecond'
       ORDER BY created_at LIMIT ?)
     ORDER BY created_at LIMIT ?`,
    [options.olderThanMs, options.limit, options.olderThanMs, options.limit, options.limit],
  );
}
