import type { EventData } from '@hireflow/contracts';
import { type EntityManager, executePrepared } from '@hireflow/db';
import {
  CandidateProjection,
  type CandidateProjectionEntity,
  PostingProjection,
  type PostingProjectionEntity,
} from '../../db/entities.ts';
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
  em: EntityManager,
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

export async function upsertPosting(em: EntityManager, posting: PostingProjectionRow): Promise<void> {
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

export function findCandidate(em: EntityManager, id: string): Promise<CandidateProjectionEntity | null> {
  return em.findOne(CandidateProjection, { id });
}

export function findPosting(em: EntityManager, id: string): Promise<PostingProjectionEntity | null> {
  return em.findOne(PostingProjection, { id });
}

/** Whether the tenant confirmed this address as a posting contact (compared lowercased, as a digest). */
export async function isConfirmedContact(
  em: EntityManager,
  tenantId: string,
  address: string,
): Promise<boolean> {
  const rows = await em.execute<{ found: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM verified_contact WHERE tenant_id = ? AND address_digest = ${ADDRESS_DIGEST}) AS found`,
    [tenantId, address],
  );
  return rows[0]?.found === true;
}

/** Records that the tenant's contact address confirmed (through its confirmation link). */
export async function recordConfirmedContact(
  em: EntityManager,
  tenantId: string,
  address: string,
): Promise<void> {
  await em.execute(
    `INSERT INTO verified_contact (tenant_id, address_digest) VALUES (?, ${ADDRESS_DIGEST})
     ON CONFLICT DO NOTHING`,
    [tenantId, address],
  );
}
