import type { EntityManager } from '@hireflow/db';
import { decodeCursor, encodeCursor } from '../../http/pagination.ts';

// The webhooks module's data access: endpoints, deliveries, attempts.

/** Raw rows carry times as Postgres gives them (text): Dates here. */
const at = (value: Date | string): Date => new Date(value);
const atOrNull = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

export interface EndpointRow {
  id: string;
  tenantId: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  consecutiveFailures: number;
  failingSince: Date | null;
  circuitOpenUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface EndpointRecord {
  id: string;
  tenant_id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
  circuit_open_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toEndpoint = (r: EndpointRecord): EndpointRow => ({
  id: r.id,
  tenantId: r.tenant_id,
  url: r.url,
  description: r.description,
  events: r.events,
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousSecretExpiresAt: atOrNull(r.previous_secret_expires_at),
  consecutiveFailures: r.consecutive_failures,
  failingSince: atOrNull(r.failing_since),
  circuitOpenUntil: atOrNull(r.circuit_open_until),
  createdAt: at(r.created_at),
  updatedAt: at(r.updated_at),
});

/** Locks the tenant's row (the endpoint limit holds between concurrent creations) and counts its endpoints. */
export async function lockAndCountEndpoints(em: EntityManager, tenantId: string): Promise<number> {
  await em.execute('SELECT id FROM tenant WHERE id = ? FOR UPDATE', [tenantId]);
  const rows = await em.execute<{ n: string }[]>(
    'SELECT count(*) AS n FROM webhook_endpoint WHERE tenant_id = ?',
    [tenantId],
  );
  return Number(rows[0]!.n);
}

export async function insertEndpoint(
  em: EntityManager,
  row: Pick<EndpointRow, 'id' | 'tenantId' | 'url' | 'description' | 'events' | 'secret'> & { now: Date },
): Promise<void> {
  await em.execute(
    `INSERT INTO webhook_endpoint (id, tenant_id, url, description, events, secret, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?)`,
    [
      row.id,
      row.tenantId,
      row.url,
      row.description,
      JSON.stringify(row.events),
      row.secret,
      row.now,
      row.now,
    ],
  );
}

export async function listEndpoints(em: EntityManager, tenantId: string): Promise<EndpointRow[]> {
  const rows = await em.execute<EndpointRecord[]>(
    'SELECT * FROM webhook_endpoint WHERE tenant_id = ? ORDER BY created_at DESC, id DESC',
    [tenantId],
  );
  return rows.map(toEndpoint);
}

export async function findEndpoint(
  em: EntityManager,
  tenantId: string,
  id: string,
): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRecord[]>(
    'SELECT * FROM webhook_endpoint WHERE tenant_id = ? AND id = ?',
    [tenantId, id],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** The endpoint of a delivery by id alone (the delivery worker's view: the tenant is the delivery's). */
export async function endpointById(em: EntityManager, id: string): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRecord[]>('SELECT * FROM webhook_endpoint WHERE id = ?', [id]);
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/**
 * Changes what is given; enabling an endpoint clears why it was disabled and
 * its failure count, so its circuit starts closed.
 */
export async function updateEndpoint(
  em: EntityManager,
  tenantId: string,
  id: string,
  change: {
    url?: string | undefined;
    events?: string[] | undefined;
    enabled?: boolean | undefined;
    now: Date;
  },
): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRecord[]>(
    `UPDATE webhook_endpoint SET
        url = coalesce(?, url),
        events = coalesce(?::jsonb, events),
        enabled = coalesce(?, enabled),
        disabled_reason = CASE WHEN ? THEN NULL ELSE disabled_reason END,
        consecutive_failures = CASE WHEN ? THEN 0 ELSE consecutive_failures END,
        failing_since = CASE WHEN ? THEN NULL ELSE failing_since END,
        circuit_open_until = CASE WHEN ? THEN NULL ELSE circuit_open_until END,
        updated_at = ?
      WHERE tenant_id = ? AND id = ?
      RETURNING *`,
    [
      change.url ?? null,
      change.events ? JSON.stringify(change.events) : null,
      change.enabled ?? null,
      change.enabled === true,
      change.enabled === true,
      change.enabled === true,
      change.enabled === true,
      change.now,
      tenantId,
      id,
    ],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

export async function deleteEndpoint(em: EntityManager, tenantId: string, id: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    'DELETE FROM webhook_endpoint WHERE tenant_id = ? AND id = ? RETURNING id',
    [tenantId, id],
  );
  return rows.length > 0;
}

/** The new secret signs from now on; the one it replaces signs beside it until `graceUntil`. */
export async function rotateSecret(
  em: EntityManager,
  tenantId: string,
  id: string,
  secret: string,
  graceUntil: Date,
): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRecord[]>(
    `UPDATE webhook_endpoint SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?, updated_at = now()
      WHERE tenant_id = ? AND id = ? RETURNING *`,
    [graceUntil, secret, tenantId, id],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** The tenant's enabled endpoints subscribed to an event type. */
export async function subscribedEndpoints(
  em: EntityManager,
  tenantId: string,
  type: string,
): Promise<{ id: string }[]> {
  return em.execute<{ id: string }[]>(
    'SELECT id FROM webhook_endpoint WHERE tenant_id = ? AND enabled AND events @> ?::jsonb ORDER BY id',
    [tenantId, JSON.stringify([type])],
  );
}

export interface NewDelivery {
  id: string;
  endpointId: string;
  tenantId: string;
  eventId: string;
  type: string;
  body: string;
  traceparent: string | null;
  createdAt: Date;
}

/** Inserts deliveries; one already there for its (endpoint, event) stays as it is. Returns the new ids. */
export async function insertDeliveries(em: EntityManager, rows: NewDelivery[]): Promise<string[]> {
  const inserted: string[] = [];
  for (const row of rows) {
    const result = await em.execute<{ id: string }[]>(
      `INSERT INTO webhook_delivery (id, endpoint_id, tenant_id, event_id, type, body, traceparent, status, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
       ON CONFLICT (endpoint_id, event_id) DO NOTHING
       RETURNING id`,
      [
        row.id,
        row.endpointId,
        row.tenantId,
        row.eventId,
        row.type,
        row.body,
        row.traceparent,
        row.createdAt,
        row.createdAt,
      ],
    );
    if (result[0]) inserted.push(result[0].id);
  }
  return inserted;
}

export interface DeliveryRow {
  id: string;
  endpointId: string;
  tenantId: string;
  eventId: string;
  type: string;
  body: string;
  traceparent: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  tenant_id: string;
  event_id: string;
  type: string;
  body: string;
  traceparent: string | null;
  status: DeliveryRow['status'];
  attempts: number;
  last_status: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

const toDelivery = (r: DeliveryRecord): DeliveryRow => ({
  id: r.id,
  endpointId: r.endpoint_id,
  tenantId: r.tenant_id,
  eventId: r.event_id,
  type: r.type,
  body: r.body,
  traceparent: r.traceparent,
  status: r.status,
  attempts: r.attempts,
  lastStatus: r.last_status,
  lastLatencyMs: r.last_latency_ms,
  lastError: r.last_error,
  nextAttemptAt: atOrNull(r.next_attempt_at),
  createdAt: at(r.created_at),
});

export async function deliveryById(em: EntityManager, id: string): Promise<DeliveryRow | null> {
  const rows = await em.execute<DeliveryRecord[]>('SELECT * FROM webhook_delivery WHERE id = ?', [id]);
  return rows[0] ? toDelivery(rows[0]) : null;
}

export async function findDelivery(
  em: EntityManager,
  tenantId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | null> {
  const rows = await em.execute<DeliveryRecord[]>(
    'SELECT * FROM webhook_delivery WHERE tenant_id = ? AND endpoint_id = ? AND id = ?',
    [tenantId, endpointId, id],
  );
  return rows[0] ? toDelivery(rows[0]) : null;
}

/** A page of an endpoint's deliveries, newest first (keyset on created_at, id). */
export async function deliveriesPage(
  em: EntityManager,
  endpointId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<{ items: DeliveryRow[]; nextCursor: string | null }> {
  const after = decodeCursor(query.cursor);
  const rows = await em.execute<DeliveryRecord[]>(
    `SELECT * FROM webhook_delivery WHERE endpoint_id = ?
       AND (?::timestamptz IS NULL OR (created_at, id) < (?::timestamptz, ?::uuid))
     ORDER BY created_at DESC, id DESC LIMIT ?`,
    [endpointId, after?.at ?? null, after?.at ?? null, after?.id ?? null, query.limit + 1],
  );
  const items = rows.slice(0, query.limit).map(toDelivery);
  const last = items.at(-1);
  const nextCursor =
    rows.length > query.limit && last
      ? encodeCursor({ at: last.createdAt.toISOString(), id: last.id })
      : null;
  return { items, nextCursor };
}

export interface AttemptRow {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string;
}

export async function attemptsOf(em: EntityManager, deliveryId: string): Promise<AttemptRow[]> {
  const rows = await em.execute<
    {
      attempted_at: Date;
      status_code: number | null;
      latency_ms: number;
      error: string | null;
      response_body: string;
    }[]
  >(
    'SELECT attempted_at, status_code, latency_ms, error, response_body FROM webhook_attempt WHERE delivery_id = ? ORDER BY id',
    [deliveryId],
  );
  return rows.map((r) => ({
    attemptedAt: at(r.attempted_at),
    statusCode: r.status_code,
    latencyMs: r.latency_ms,
    error: r.error,
    responseBody: r.response_body,
  }));
}

export interface AttemptRecord extends AttemptRow {
  deliveryId: string;
  /** The delivery's state after this attempt. */
  status: DeliveryRow['status'];
  nextAttemptAt: Date | null;
}

/** Logs an attempt and moves its delivery on, in the caller's transaction. */
export async function recordAttempt(em: EntityManager, attempt: AttemptRecord): Promise<void> {
  await em.execute(
    `INSERT INTO webhook_attempt (delivery_id, attempted_at, status_code, latency_ms, error, response_body)
     VALUES (?, ?, ?, ?, ?, ?)`,
    [
      attempt.deliveryId,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.error,
      attempt.responseBody,
    ],
  );
  await em.execute(
    `UPDATE webhook_delivery SET status = ?, attempts = attempts + 1, last_status = ?, last_latency_ms = ?,
        last_error = ?, next_attempt_at = ?
      WHERE id = ?`,
    [
      attempt.status,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.error,
      attempt.nextAttemptAt,
      attempt.deliveryId,
    ],
  );
}

/**
 * A delivered attempt in one statement (atomic without a transaction: one
 * round trip instead of five on the path every delivery takes): the attempt
 * logged, its delivery delivered, and the endpoint's streak cleared when it
 * had one: success closes the circuit (no row of a healthy endpoint is locked).
 */
export async function recordSuccess(
  em: EntityManager,
  attempt: Omit<AttemptRecord, 'status' | 'nextAttemptAt' | 'error'>,
  endpointId: string,
): Promise<void> {
  await em.execute(
    `WITH logged AS (
       INSERT INTO webhook_attempt (delivery_id, attempted_at, status_code, latency_ms, error, response_body)
       VALUES (?, ?, ?, ?, NULL, ?)
     ), delivered AS (
       UPDATE webhook_delivery SET status = 'delivered', attempts = attempts + 1, last_status = ?,
              last_latency_ms = ?, last_error = NULL, next_attempt_at = NULL
        WHERE id = ?
     )
     UPDATE webhook_endpoint SET consecutive_failures = 0, failing_since = NULL, circuit_open_until = NULL
      WHERE id = ? AND (consecutive_failures <> 0 OR failing_since IS NOT NULL OR circuit_open_until IS NOT NULL)`,
    [
      attempt.deliveryId,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.responseBody,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.deliveryId,
      endpointId,
    ],
  );
}

/**
 * A failure lengthens the streak and, from `openUntil`'s threshold, opens the
 * circuit. A failure of an attempt that was already on its way when the
 * circuit opened changes neither: only the probe's failure opens it again
 * (for longer). Returns the streak's start.
 */
export async function endpointFailed(
  em: EntityManager,
  endpointId: string,
  now: Date,
  openUntil: (failures: number) => Date | null,
): Promise<{ failures: number; failingSince: Date } | null> {
  const rows = await em.execute<
    { consecutive_failures: number; failing_since: Date | string; open: boolean }[]
  >(
    `UPDATE webhook_endpoint SET
        consecutive_failures = consecutive_failures + CASE WHEN circuit_open_until > ? THEN 0 ELSE 1 END,
        failing_since = coalesce(failing_since, ?)
      WHERE id = ? RETURNING consecutive_failures, failing_since, coalesce(circuit_open_until > ?, false) AS open`,
    [now, now, endpointId, now],
  );
  const row = rows[0];
  if (!row) return null;
  const until = row.open ? null : openUntil(row.consecutive_failures);
  if (until)
    await em.execute('UPDATE webhook_endpoint SET circuit_open_until = ? WHERE id = ?', [until, endpointId]);
  return { failures: row.consecutive_failures, failingSince: at(row.failing_since) };
}

/** Disables an enabled endpoint with a reason; true when this call did it. */
export async function disableEndpoint(
  em: EntityManager,
  endpointId: string,
  reason: string,
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE webhook_endpoint SET enabled = false, disabled_reason = ?, updated_at = now()
      WHERE id = ? AND enabled RETURNING id`,
    [reason, endpointId],
  );
  return rows.length > 0;
}

/** The contact address of a tenant (the email of `webhook.endpoint.disabled.v1`). */
export async function tenantContact(em: EntityManager, tenantId: string): Promise<string | null> {
  const rows = await em.execute<{ contact_email: string }[]>(
    'SELECT contact_email FROM tenant WHERE id = ?',
    [tenantId],
  );
  return rows[0]?.contact_email ?? null;
}

/** Puts a delivery back to pending, due now (a manual retry); false when it is not the tenant's. */
export async function resetDelivery(
  em: EntityManager,
  tenantId: string,
  endpointId: string,
  id: string,
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE webhook_delivery SET status = 'pending', next_attempt_at = now()
      WHERE tenant_id = ? AND endpoint_id = ? AND id = ? RETURNING id`,
    [tenantId, endpointId, id],
  );
  return rows.length > 0;
}

/** Pending deliveries due before `before`: the sweep adds their tasks again (a lost add, a restart). */
export async function overdueDeliveries(
  em: EntityManager,
  before: Date,
  limit: number,
): Promise<{ id: string; traceparent: string | null }[]> {
  return em.execute<{ id: string; traceparent: string | null }[]>(
    `SELECT id, traceparent FROM webhook_delivery WHERE status = 'pending' AND next_attempt_at < ?
      ORDER BY next_attempt_at LIMIT ?`,
    [before, limit],
  );
}
