import type { EventData } from '@hireflow/contracts';
import { executePrepared, type Sql, toDate } from '@hireflow/db';
import { ADDRESS_DIGEST, ADDRESS_LOCK } from '../quotas/store.ts';

// The service's own copies of what other services own (docs/design.md: a consumer
// keeps a projection rather than calling another service). Upserts: the
// same event applied twice leaves the same row.

/**
 * The candidate's upsert, which first takes the lock of its address
 * (ADDRESS_LOCK) for the rest of the transaction: the welcome email the
 * candidate gets is then recorded and admitted by the next statement
 * (recordAndCheck with `addressLocked`), whose count of recent welcomes must
 * start after the lock is held. One round trip for both.
 */
export async function upsertCandidateLockingAddress(
  em: Sql,
  data: EventData<'candidate.registered.v1'>,
): Promise<void> {
  await executePrepared(
    em,
    `INSERT INTO candidate_projection (id, tenant_id, name, email, updated_at)
     SELECT ?::uuid, ?::uuid, ?::text, ?::text, now() ${ADDRESS_LOCK}
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, updated_at = now()`,
    [data.candidateId, data.tenantId, data.name, data.email, data.email],
  );
}

/** What notifications keeps of a posting (job.posted.v1): its title, contact address and time. */
export interface PostingProjectionRow {
  postingId: string;
  tenantId: string;
  title: string;
  contactEmail: string;
  /** The contact is the tenant's own: summaries need no confirmation. */
  contactVerified: boolean;
  postedAt: string;
}

export async function upsertPosting(em: Sql, posting: PostingProjectionRow): Promise<void> {
  await em.execute(
    `INSERT INTO posting_projection (id, tenant_id, title, contact_email, contact_verified, posted_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, now())
     ON CONFLICT (id) DO UPDATE
       SET title = EXCLUDED.title, contact_email = EXCLUDED.contact_email,
           contact_verified = EXCLUDED.contact_verified, updated_at = now()`,
    [
      posting.postingId,
      posting.tenantId,
      posting.title,
      posting.contactEmail,
      posting.contactVerified,
      posting.postedAt,
    ],
  );
}

/** What notifications keeps of a candidate (candidate.registered.v1): the name and address its emails use. */
export interface CandidateProjection {
  id: string;
  tenantId: string;
  name: string;
  email: string;
}

export async function findCandidate(em: Sql, id: string): Promise<CandidateProjection | null> {
  const rows = await em.execute<{ id: string; tenant_id: string; name: string; email: string }[]>(
    'SELECT id, tenant_id, name, email FROM candidate_projection WHERE id = ? LIMIT 1',
    [id],
  );
  const row = rows[0];
  return row ? { id: row.id, tenantId: row.tenant_id, name: row.name, email: row.email } : null;
}

/** A posting as notifications reads it back (`PostingProjectionRow` as written, its time a Date). */
export interface PostingProjection {
  id: string;
  tenantId: string;
  title: string;
  contactEmail: string;
  contactVerified: boolean;
  postedAt: Date;
}

export async function findPosting(em: Sql, id: string): Promise<PostingProjection | null> {
  const rows = await em.execute<
    {
      id: string;
      tenant_id: string;
      title: string;
      contact_email: string;
      contact_verified: boolean;
      posted_at: string;
    }[]
  >(
    'SELECT id, tenant_id, title, contact_email, contact_verified, posted_at FROM posting_projection WHERE id = ? LIMIT 1',
    [id],
  );
  const row = rows[0];
  return row
    ? {
        id: row.id,
        tenantId: row.tenant_id,
        title: row.title,
        contactEmail: row.contact_email,
        contactVerified: row.contact_verified,
        postedAt: toDate(row.posted_at),
      }
    : null;
}

/** Whether the tenant confirmed this address as a posting contact (compared lowercased, as a digest). */
export async function isConfirmedContact(em: Sql, tenantId: string, address: string): Promise<boolean> {
  const rows = await em.execute<{ found: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM verified_contact WHERE tenant_id = ? AND address_digest = ${ADDRESS_DIGEST}) AS found`,
    [tenantId, address],
  );
  return rows[0]?.found === true;
}

/** Records that the tenant's contact address confirmed (through its confirmation link). */
export async function recordConfirmedContact(em: Sql, tenantId: string, address: string): Promise<void> {
  await em.execute(
    `INSERT INTO verified_contact (tenant_id, address_digest) VALUES (?, ${ADDRESS_DIGEST})
     ON CONFLICT DO NOTHING`,
    [tenantId, address],
  );
}
