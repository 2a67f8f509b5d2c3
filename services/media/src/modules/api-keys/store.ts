import type { Sql } from '@hireflow/db';
import type { ApiPrincipal } from '@hireflow/runtime';

// The projection of jobs' API keys. Events may arrive in any order and more
// than once: an issue after its revocation keeps the key revoked, and
// applying either twice changes nothing.

export async function applyIssued(
  em: Sql,
  key: { keyId: string; tenantId: string; keyHash: string; issuedAt: string },
): Promise<void> {
  await em.execute(
    `INSERT INTO api_key (key_id, tenant_id, key_hash, issued_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key_id) DO UPDATE
       SET key_hash = EXCLUDED.key_hash, issued_at = EXCLUDED.issued_at, updated_at = now()`,
    [key.keyId, key.tenantId, key.keyHash, key.issuedAt],
  );
}

export async function applyRevoked(
  em: Sql,
  key: { keyId: string; tenantId: string; revokedAt: string },
): Promise<void> {
  await em.execute(
    `INSERT INTO api_key (key_id, tenant_id, revoked_at) VALUES (?, ?, ?)
     ON CONFLICT (key_id) DO UPDATE
       SET revoked_at = COALESCE(api_key.revoked_at, EXCLUDED.revoked_at), updated_at = now()`,
    [key.keyId, key.tenantId, key.revokedAt],
  );
}

/** The active key with this hash (issued, not revoked). */
export async function findActiveKey(em: Sql, keyHash: string): Promise<ApiPrincipal | null> {
  const rows = await em.execute<{ key_id: string; tenant_id: string }[]>(
    'SELECT key_id, tenant_id FROM api_key WHERE key_hash = ? AND revoked_at IS NULL',
    [keyHash],
  );
  const row = rows[0];
  return row ? { keyId: row.key_id, tenantId: row.tenant_id } : null;
}

/** What the projection knows of a key (the launcher asks whether media has caught up). */
export async function describeKey(
  em: Sql,
  keyId: string,
): Promise<{ keyId: string; tenantId: string; active: boolean } | null> {
  const rows = await em.execute<{ key_id: string; tenant_id: string; active: boolean }[]>(
    `SELECT key_id, tenant_id, (key_hash IS NOT NULL AND revoked_at IS NULL) AS active
       FROM api_key WHERE key_id = ?`,
    [keyId],
  );
  const row = rows[0];
  return row ? { keyId: row.key_id, tenantId: row.tenant_id, active: row.active } : null;
}
