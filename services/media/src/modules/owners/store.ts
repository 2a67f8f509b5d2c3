import type { EntityManager } from '@hireflow/db';
import type { OwnerType } from '../../db/entities.ts';

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

/**
 * Records the owner and attaches the tenant's uploads waiting for it, in the
 * caller's transaction. Applying it again changes nothing. Returns how many
 * uploads it attached.
 */
export async function recordOwner(em: EntityManager, owner: OwnerRef): Promise<number> {
  await em.execute(
    `INSERT INTO known_owner (tenant_id, owner_type, owner_id) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id, owner_type, owner_id) DO NOTHING`,
    [owner.tenantId, owner.ownerType, owner.ownerId],
  );
  const attached = await em.execute<{ id: string }[]>(
    `UPDATE upload SET owner_pending = false
      WHERE owner_pending AND tenant_id = ? AND owner_type = ? AND owner_id = ?
      RETURNING id`,
    [owner.tenantId, owner.ownerType, owner.ownerId],
  );
  return attached.length;
}

/** Whether media knows this owner in this tenant. */
export async function isKnownOwner(em: EntityManager, owner: OwnerRef): Promise<boolean> {
  const rows = await em.execute<{ known: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM known_owner WHERE tenant_id = ? AND owner_type = ? AND owner_id = ?) AS known`,
    [owner.tenantId, owner.ownerType, owner.ownerId],
  );
  return rows[0]?.known === true;
}

/**
 * Attaches every pending upload whose owner the projection holds. The event
 * handler attaches the uploads it finds, but an upload committed while its
 * owner's event was being applied may be missed by both (each statement saw
 * the other's transaction uncommitted): the expiry runs this first, so such an
 * upload is attached, never removed.
 */
export async function attachKnownOwners(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE upload u SET owner_pending = false
       FROM known_owner o
      WHERE u.owner_pending
        AND o.tenant_id = u.tenant_id AND o.owner_type = u.owner_type AND o.owner_id = u.owner_id
      RETURNING u.id`,
  );
  return rows.length;
}
