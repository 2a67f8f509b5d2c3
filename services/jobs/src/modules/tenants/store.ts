import type { EntityManager } from '@hireflow/db';
import { ApiKey, type ApiKeyEntity } from '../../db/entities.ts';

// The tenants module's data access (keys and tenants are also written through
// the unit of work in api-keys.ts).

export interface ActiveKey {
  keyId: string;
  tenantId: string;
  contactEmail: string;
}

/** The active (not revoked) key with this hash, with its tenant's contact address. */
export async function findActiveKey(em: EntityManager, keyHash: string): Promise<ActiveKey | null> {
  const rows = await em.execute<{ id: string; tenant_id: string; contact_email: string }[]>(
    `SELECT k.id, k.tenant_id, t.contact_email FROM api_key k JOIN tenant t ON t.id = k.tenant_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    [keyHash],
  );
  const row = rows[0];
  return row ? { keyId: row.id, tenantId: row.tenant_id, contactEmail: row.contact_email } : null;
}

/** Every key, active or revoked, oldest first. */
export function allApiKeys(em: EntityManager): Promise<ApiKeyEntity[]> {
  return em.find(ApiKey, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** Runs an outbox statement (`outboxInsertStatement`) on its own. */
export async function writeOutbox(
  em: EntityManager,
  outbox: { sql: string; params: unknown[] },
): Promise<void> {
  await em.execute(outbox.sql, outbox.params);
}
