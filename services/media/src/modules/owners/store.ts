import type { Sql } from '@hireflow/db';
import type { OwnerType, StoredVariant } from '../../db/upload-types.ts';

// media's projection of the owners an upload may name: the postings
// (job.posted.v1) and candidates (candidate.registered.v1) of each tenant,
// ids only. An upload naming an owner the projection does not hold is
// accepted but pending (it expires like one without an owner); the owner's
// event, whenever it arrives, attaches it. Every key carries the tenant: an
// event of another tenant never vouches for an owner.

export interface OwnerRef {
  tenantId: string;
  ownerType: OwnerType;
  ownerId: string;
}

/** An upload the owner's event (or the expiry's check) has just attached. */
export interface AttachedUpload {
  id: string;
  tenant_id: string;
  owner_type: OwnerType;
  owner_id: string;
  status: 'pending' | 'ready' | 'failed';
  variants: StoredVariant[] | null;
  created_at: Date;
}

const ATTACHED_COLUMNS = 'id, tenant_id, owner_type, owner_id, status, variants, created_at';

/**
 * Records the owner and attaches the tenant's uploads waiting for it, in the
 * caller's transaction (which announces the ready ones: `announceAttached`).
 * Applying it again changes nothing. Returns the uploads it attached.
 */
export async function recordOwner(em: Sql, owner: OwnerRef): Promise<AttachedUpload[]> {
  await em.execute(
    `INSERT INTO known_owner (tenant_id, owner_type, owner_id) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id, owner_type, owner_id) DO NOTHING`,
    [owner.tenantId, owner.ownerType, owner.ownerId],
  );
  return em.execute<AttachedUpload[]>(
    `UPDATE upload SET owner_pending = false
      WHERE owner_pending AND tenant_id = ? AND owner_type = ? AND owner_id = ?
      RETURNING ${ATTACHED_COLUMNS}`,
    [owner.tenantId, owner.ownerType, owner.ownerId],
  );
}

/**
 * Attaches every pending upload whose owner the projection holds. The event
 * handler attaches the uploads it finds, but an upload committed while its
 * owner's event was being applied may be missed by both (each statement saw
 * the other's transaction uncommitted): the expiry runs this first, so such an
 * upload is attached, never removed. In the caller's transaction, like
 * `recordOwner`.
 */
export function attachKnownOwners(em: Sql): Promise<AttachedUpload[]> {
  return em.execute<AttachedUpload[]>(
    `UPDATE upload u SET owner_pending = false
       FROM known_owner o
      WHERE u.owner_pending
        AND o.tenant_id = u.tenant_id AND o.owner_type = u.owner_type AND o.owner_id = u.owner_id
      RETURNING u.id, u.tenant_id, u.owner_type, u.owner_id, u.status, u.variants, u.created_at`,
  );
}
