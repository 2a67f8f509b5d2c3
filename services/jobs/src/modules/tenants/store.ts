import { type Sql, toDate, toDateOrNull } from '@hireflow/db';

// The tenants module's data access: every statement on tenant and api_key.

export interface Tenant {
  id: string;
  name: string;
  contactEmail: string;
}

/** The tenant of this name, if any. */
export async function findTenantByName(em: Sql, name: string): Promise<Tenant | null> {
  const rows = await em.execute<{ id: string; name: string; contact_email: string }[]>(
    'SELECT id, name, contact_email FROM tenant WHERE name = ? LIMIT 1',
    [name],
  );
  const row = rows[0];
  return row ? { id: row.id, name: row.name, contactEmail: row.contact_email } : null;
}

/** Inserts a tenant (its name is unique: a concurrent insert of the same name fails, 23505). */
export async function insertTenant(em: Sql, tenant: Tenant, createdAt: Date): Promise<void> {
  await em.execute('INSERT INTO tenant (id, name, contact_email, created_at) VALUES (?, ?, ?, ?)', [
    tenant.id,
    tenant.name,
    tenant.contactEmail,
    createdAt,
  ]);
}

export async function setTenantContact(em: Sql, tenantId: string, contactEmail: string): Promise<void> {
  await em.execute('UPDATE tenant SET contact_email = ? WHERE id = ?', [contactEmail, tenantId]);
}

export interface ApiKey {
  id: string;
  tenantId: string;
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

const API_KEY_COLUMNS = 'id, tenant_id, key_hash, created_at, revoked_at';

const apiKeyOf = (r: ApiKeyRecord): ApiKey => ({
  id: r.id,
  tenantId: r.tenant_id,
  keyHash: r.key_hash,
  createdAt: toDate(r.created_at),
  revokedAt: toDateOrNull(r.revoked_at),
});

export async function insertApiKey(em: Sql, key: Omit<ApiKey, 'revokedAt'>): Promise<void> {
  await em.execute('INSERT INTO api_key (id, tenant_id, key_hash, created_at) VALUES (?, ?, ?, ?)', [
    key.id,
    key.tenantId,
    key.keyHash,
    key.createdAt,
  ]);
}

export async function findApiKey(em: Sql, id: string): Promise<ApiKey | null> {
  const rows = await em.execute<ApiKeyRecord[]>(
    `SELECT ${API_KEY_COLUMNS} FROM api_key WHERE id = ? LIMIT 1`,
    [id],
  );
  return rows[0] ? apiKeyOf(rows[0]) : null;
}

export async function setKeyRevoked(em: Sql, id: string, revokedAt: Date): Promise<void> {
  await em.execute('UPDATE api_key SET revoked_at = ? WHERE id = ?', [revokedAt, id]);
}

export interface ActiveKey {
  keyId: string;
  tenantId: string;
  contactEmail: string;
}

/** The active (not revoked) key with this hash, with its tenant's contact address. */
export async function findActiveKey(em: Sql, keyHash: string): Promise<ActiveKey | null> {
  const rows = await em.execute<{ id: string; tenant_id: string; contact_email: string }[]>(
    `SELECT k.id, k.tenant_id, t.contact_email FROM api_key k JOIN tenant t ON t.id = k.tenant_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    [keyHash],
  );
  const row = rows[0];
  return row ? { keyId: row.id, tenantId: row.tenant_id, contactEmail: row.contact_email } : null;
}

/** Every key, active or revoked, oldest first. */
export async function allApiKeys(em: Sql): Promise<ApiKey[]> {
  const rows = await em.execute<ApiKeyRecord[]>(
    `SELECT ${API_KEY_COLUMNS} FROM api_key ORDER BY created_at ASC, id ASC`,
  );
  return rows.map(apiKeyOf);
}

/** Runs an outbox statement (`outboxInsertStatement`) on its own. */
export async function writeOutbox(em: Sql, outbox: { sql: string; params: unknown[] }): Promise<void> {
  await em.execute(outbox.sql, outbox.params);
}
