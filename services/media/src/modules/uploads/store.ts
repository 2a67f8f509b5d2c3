import { type Sql, toDate } from '@hireflow/db';
import type { OwnerType, StoredVariant } from '../../db/upload-types.ts';

// The uploads module's data access: every statement on `upload` lives here.

export type UploadStatus = 'pending' | 'ready' | 'failed';

/** An upload as the API shows it and the resize worker acts on it. */
export interface Upload {
  id: string;
  tenantId: string;
  status: UploadStatus;
  ownerType: OwnerType | null;
  ownerId: string | null;
  /**
   * The owner is named but media has not heard of it (no job.posted.v1 /
   * candidate.registered.v1 of the tenant yet): the upload expires like one
   * without an owner unless the owner's event arrives in time.
   */
  ownerPending: boolean;
  variants: StoredVariant[] | null;
  /** Why it failed, in words a client may read. */
  reason: string | null;
  createdAt: Date;
}

interface UploadRecord {
  id: string;
  tenant_id: string;
  status: UploadStatus;
  owner_type: OwnerType | null;
  owner_id: string | null;
  owner_pending: boolean;
  variants: StoredVariant[] | null;
  reason: string | null;
  created_at: string;
}

const UPLOAD_COLUMNS =
  'id, tenant_id, status, owner_type, owner_id, owner_pending, variants, reason, created_at';

const uploadOf = (r: UploadRecord): Upload => ({
  id: r.id,
  tenantId: r.tenant_id,
  status: r.status,
  ownerType: r.owner_type,
  ownerId: r.owner_id,
  ownerPending: r.owner_pending,
  variants: r.variants,
  reason: r.reason,
  createdAt: toDate(r.created_at),
});

export interface NewUpload {
  id: string;
  tenantId: string;
  ownerType: OwnerType | null;
  ownerId: string | null;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  createdAt: Date;
}

/**
 * Records a pending upload. An upload naming an owner that media's owners
 * projection does not hold for the tenant is recorded `owner_pending` (it
 * expires unless the owner's event arrives: modules/owners). An id that
 * exists already (it derives from an Idempotency-Key: a retry after the
 * key's lease) keeps its row: false.
 */
export async function insertUpload(em: Sql, row: NewUpload): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `INSERT INTO upload (id, tenant_id, status, owner_type, owner_id, owner_pending, content_type, size_bytes, width, height, created_at)
     VALUES (?, ?, 'pending', ?, ?,
             ?::uuid IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM known_owner WHERE tenant_id = ? AND owner_type = ?::text AND owner_id = ?::uuid),
             ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      row.id,
      row.tenantId,
      row.ownerType,
      row.ownerId,
      row.ownerId,
      row.tenantId,
      row.ownerType,
      row.ownerId,
      row.contentType,
      row.sizeBytes,
      row.width,
      row.height,
      row.createdAt,
    ],
  );
  return rows.length > 0;
}

/** Bytes of the tenant's stored originals (every upload it still has). */
export async function tenantStoredBytes(em: Sql, tenantId: string): Promise<number> {
  const rows = await em.execute<{ bytes: string }[]>(
    'SELECT coalesce(sum(size_bytes), 0)::text AS bytes FROM upload WHERE tenant_id = ?',
    [tenantId],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/** The tenant's upload (another tenant's id is not found). */
export async function findUpload(em: Sql, tenantId: string, id: string): Promise<Upload | null> {
  const rows = await em.execute<UploadRecord[]>(
    `SELECT ${UPLOAD_COLUMNS} FROM upload WHERE id = ? AND tenant_id = ? LIMIT 1`,
    [id, tenantId],
  );
  return rows[0] ? uploadOf(rows[0]) : null;
}

/** Any tenant's upload: the worker acts on the id in its job. */
export async function findUploadById(em: Sql, id: string): Promise<Upload | null> {
  const rows = await em.execute<UploadRecord[]>(`SELECT ${UPLOAD_COLUMNS} FROM upload WHERE id = ? LIMIT 1`, [
    id,
  ]);
  return rows[0] ? uploadOf(rows[0]) : null;
}

/** The tenant of a ready upload (the public variant route serves nothing else). */
export async function readyUploadTenant(em: Sql, id: string): Promise<string | undefined> {
  const rows = await em.execute<{ tenant_id: string }[]>(
    "SELECT tenant_id FROM upload WHERE id = ? AND status = 'ready'",
    [id],
  );
  return rows[0]?.tenant_id;
}

export type Outcome = { status: 'ready'; variants: StoredVariant[] } | { status: 'failed'; reason: string };

/**
 * Finishes a pending upload and, in the same statement, writes its event to
 * the outbox: a CTE writes both or neither. Each statement of `outbox` is
 * `outboxInsertStatement(event, { from: 'finished …' })` over the finished row
 * (`finished.owner_pending` is its state at that instant, so the event can
 * depend on it); those whose `FROM` yields no row write nothing. An upload no
 * longer pending (a redelivered or re-run task, a racing worker) changes
 * nothing and emits nothing: false.
 */
export async function finishUpload(
  em: Sql,
  id: string,
  outcome: Outcome,
  outbox: { sql: string; params: unknown[] }[],
): Promise<boolean> {
  const inserts = outbox.map((statement, i) => `event${i} AS (${statement.sql} RETURNING event_id)`);
  const rows = await em.execute<{ event_id: string }[]>(
    `WITH finished AS (
       UPDATE upload SET status = ?, variants = ?::jsonb, reason = ?, finished_at = now()
        WHERE id = ? AND status = 'pending'
        RETURNING id, owner_pending
     ),
     ${inserts.join(',\n     ')}
     ${outbox.map((_, i) => `SELECT event_id FROM event${i}`).join(' UNION ALL ')}`,
    [
      outcome.status,
      outcome.status === 'ready' ? JSON.stringify(outcome.variants) : null,
      outcome.status === 'failed' ? outcome.reason : null,
      id,
      ...outbox.flatMap((statement) => statement.params),
    ],
  );
  return rows.length > 0;
}

/** Uploads pending for longer than `olderThanMs`, oldest first (the sweep checks their tasks). */
export function stalePendingUploads(em: Sql, olderThanMs: number, limit: number) {
  return em.execute<{ id: string; tenant_id: string }[]>(
    `SELECT id, tenant_id FROM upload
      WHERE status = 'pending' AND created_at < now() - make_interval(secs => ?::double precision / 1000)
      ORDER BY created_at LIMIT ?`,
    [olderThanMs, limit],
  );
}

/**
 * Uploads that expire (no owner, or an owner media has not heard of) older
 * than `olderThanMs`, oldest first. A pending one is left to finish first (its
 * resize would write variants after the removal); the resize sweep ends any
 * pending upload that cannot.
 */
export function expirableUploads(em: Sql, olderThanMs: number, limit: number) {
  return em.execute<{ id: string; tenant_id: string }[]>(
    `SELECT id, tenant_id FROM upload
      WHERE (owner_id IS NULL OR owner_pending) AND status <> 'pending'
        AND created_at < now() - make_interval(secs => ?::double precision / 1000)
      ORDER BY created_at LIMIT ?`,
    [olderThanMs, limit],
  );
}

/**
 * Removes an upload that still expires, in the caller's transaction: the row
 * stays locked until the caller (which deletes the bytes next) commits, so an
 * owner's event arriving meanwhile waits and then finds no upload to attach,
 * and an owner known by now keeps its upload. False when it no longer expires.
 */
export async function deleteExpiredUpload(em: Sql, id: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `DELETE FROM upload u
      WHERE u.id = ? AND (u.owner_id IS NULL OR u.owner_pending) AND u.status <> 'pending'
        AND NOT EXISTS (
          SELECT 1 FROM known_owner o
           WHERE o.tenant_id = u.tenant_id AND o.owner_type = u.owner_type AND o.owner_id = u.owner_id)
      RETURNING u.id`,
    [id],
  );
  return rows.length > 0;
}
