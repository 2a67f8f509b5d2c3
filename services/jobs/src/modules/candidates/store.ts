import { type Sql, toDate } from '@hireflow/db';
import type { MediaImage } from '../../db/media-image.ts';
import { newestFirstRows } from '../../db/store.ts';
import { keysetAfter, newestFirstPage } from '../../http/pagination.ts';

// The candidates module's data access.

/** A new candidate's values (`Candidate` below: with its photo once one is processed). */
export type CandidateRow = Omit<Candidate, 'photo'>;

/**
 * Inserts the candidate unless the tenant has one with this email
 * (case-insensitively; the unique index decides between concurrent
 * registrations). Returns the id of the candidate that stands, and whether it is new.
 */
export async function insertCandidate(em: Sql, row: CandidateRow): Promise<{ id: string; created: boolean }> {
  const inserted = await em.execute<{ id: string }[]>(
    `INSERT INTO candidate (id, tenant_id, name, email, headline, skills, location, created_at)
     VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?)
     ON CONFLICT (tenant_id, lower(email)) DO NOTHING
     RETURNING id`,
    [
      row.id,
      row.tenantId,
      row.name,
      row.email,
      row.headline,
      JSON.stringify(row.skills),
      row.location,
      row.createdAt,
    ],
  );
  if (inserted.length > 0) return { id: row.id, created: true };
  const existing = await em.execute<{ id: string }[]>(
    'SELECT id FROM candidate WHERE tenant_id = ? AND lower(email) = lower(?)',
    [row.tenantId, row.email],
  );
  return { id: existing[0]!.id, created: false };
}

/** A candidate as the API shows it (`toCandidateView`). */
export interface Candidate {
  id: string;
  tenantId: string;
  name: string;
  email: string;
  headline: string;
  skills: string[];
  location: string;
  photo: MediaImage | null;
  createdAt: Date;
}

interface CandidateRecord {
  id: string;
  tenant_id: string;
  name: string;
  email: string;
  headline: string;
  skills: string[];
  location: string;
  photo: MediaImage | null;
  created_at: string;
}

const CANDIDATE_COLUMNS = 'id, tenant_id, name, email, headline, skills, location, photo, created_at';

const candidateOf = (r: CandidateRecord): Candidate => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  email: r.email,
  headline: r.headline,
  skills: r.skills,
  location: r.location,
  photo: r.photo,
  createdAt: toDate(r.created_at),
});

export async function findCandidate(em: Sql, tenantId: string, id: string): Promise<Candidate | null> {
  const rows = await em.execute<CandidateRecord[]>(
    `SELECT ${CANDIDATE_COLUMNS} FROM candidate WHERE id = ? AND tenant_id = ? LIMIT 1`,
    [id, tenantId],
  );
  return rows[0] ? candidateOf(rows[0]) : null;
}

export async function candidateExists(em: Sql, tenantId: string, id: string): Promise<boolean> {
  const rows = await em.execute<{ found: boolean }[]>(
    'SELECT EXISTS (SELECT 1 FROM candidate WHERE id = ? AND tenant_id = ?) AS found',
    [id, tenantId],
  );
  return rows[0]?.found === true;
}

/** A page of the tenant's candidates, newest first (keyset on created_at, id). */
export async function candidatesPage(
  em: Sql,
  tenantId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<{ items: Candidate[]; nextCursor: string | null }> {
  const source = { table: 'candidate', columns: CANDIDATE_COLUMNS, timeColumn: 'created_at' };
  const rows = await newestFirstRows<CandidateRecord>(
    em,
    source,
    tenantId,
    keysetAfter(query.cursor),
    query.limit,
  );
  return newestFirstPage(rows.map(candidateOf), query.limit, (c) => ({ at: c.createdAt, id: c.id }));
}

/**
 * Shows a processed upload as the candidate's photo: only a candidate of the
 * event's tenant, and only an upload newer than the photo shown (ties broken
 * by upload id), in one conditional statement. True when the photo changed.
 */
export async function setPhoto(
  em: Sql,
  change: { tenantId: string; candidateId: string; photo: MediaImage; uploadedAt: string },
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE candidate SET photo = ?::jsonb, photo_uploaded_at = ?
      WHERE id = ? AND tenant_id = ?
        AND (photo_uploaded_at IS NULL OR (photo_uploaded_at, photo->>'uploadId') < (?::timestamptz, ?))
      RETURNING id`,
    [
      JSON.stringify(change.photo),
      change.uploadedAt,
      change.candidateId,
      change.tenantId,
      change.uploadedAt,
      change.photo.uploadId,
    ],
  );
  return rows.length > 0;
}
