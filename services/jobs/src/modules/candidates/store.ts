import type { EntityManager } from '@hireflow/db';
import { Candidate, type CandidateEntity, type MediaImage } from '../../db/entities.ts';
import { newestFirstPage } from '../../http/pagination.ts';

// The candidates module's data access.

export interface CandidateRow {
  id: string;
  tenantId: string;
  name: string;
  email: string;
  headline: string;
  skills: string[];
  location: string;
  createdAt: Date;
}

/**
 * Inserts the candidate unless the tenant has one with this email
 * (case-insensitively; the unique index decides between concurrent
 * registrations). Returns the id of the candidate that stands, and whether it is new.
 */
export async function insertCandidate(
  em: EntityManager,
  row: CandidateRow,
): Promise<{ id: string; created: boolean }> {
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

export function findCandidate(
  em: EntityManager,
  tenantId: string,
  id: string,
): Promise<CandidateEntity | null> {
  return em.findOne(Candidate, { id, tenantId });
}

export async function candidateExists(em: EntityManager, tenantId: string, id: string): Promise<boolean> {
  return (await em.count(Candidate, { id, tenantId })) > 0;
}

export function candidatesPage(
  em: EntityManager,
  tenantId: string,
  query: { limit: number; cursor?: string | undefined },
) {
  return newestFirstPage(em, Candidate, tenantId, 'createdAt', query);
}

/**
 * Shows a processed upload as the candidate's photo: only a candidate of the
 * event's tenant, and only an upload newer than the photo shown (ties broken
 * by upload id), in one conditional statement. True when the photo changed.
 */
export async function setPhoto(
  em: EntityManager,
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
