import { executePrepared, poolOf, type Sql } from '@hireflow/db';
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
export async function lockAndCountEndpoints(em: Sql, tenantId: string): Promise<number> {
  await em.execute('SELECT id FROM tenant WHERE id = ? FOR UPDATE', [tenantId]);
  const rows = await em.execute<{ n: string }[]>(
    'SELECT count(*) AS n FROM webhook_endpoint WHERE tenant_id = ?',
    [tenantId],
  );
  return Number(rows[0]!.n);
}

export async function insertEndpoint(
  em: Sql,
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

export async function listEndpoints(em: Sql, tenantId: string): Promise<EndpointRow[]> {
  const rows = await em.execute<EndpointRecord[]>(
    'SELECT * FROM webhook_endpoint WHERE tenant_id = ? ORDER BY created_at DESC, id DESC',
    [tenantId],
  );
  return rows.map(toEndpoint);
}

export async function findEndpoint(em: Sql, tenantId: string, id: string): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRecord[]>(
    'SELECT * FROM webhook_endpoint WHERE tenant_id = ? AND id = ?',
    [tenantId, id],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/**
 * Changes what is given; enabling an endpoint clears why it was disabled and
 * its failure count, so its circuit starts closed.
 */
export async function updateEndpoint(
  em: Sql,
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

export async function deleteEndpoint(em: Sql, tenantId: string, id: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    'DELETE FROM webhook_endpoint WHERE tenant_id = ? AND id = ? RETURNING id',
    [tenantId, id],
  );
  return rows.length > 0;
}

/** The new secret signs from now on; the one it replaces signs beside it until `graceUntil`. */
export async function rotateSecret(
  em: Sql,
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
  em: Sql,
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
export async function insertDeliveries(em: Sql, rows: NewDelivery[]): Promise<string[]> {
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

/** A delivery as stored: what was inserted, and how its attempts went. */
export interface DeliveryRow extends NewDelivery {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
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

export async function findDelivery(
  em: Sql,
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
  em: Sql,
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

export async function attemptsOf(em: Sql, deliveryId: string): Promise<AttemptRow[]> {
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

/**
 * Logs an attempt and moves its delivery on (its slot given back), in one
 * statement: atomic on its own, or part of the caller's transaction.
 */
export async function recordAttempt(em: Sql, attempt: AttemptRecord): Promise<void> {
  await executePrepared(
    em,
    `WITH logged AS (
       INSERT INTO webhook_attempt (delivery_id, attempted_at, status_code, latency_ms, error, response_body)
       VALUES (?, ?, ?, ?, ?, ?)
     )
     UPDATE webhook_delivery SET status = ?, attempts = attempts + 1, last_status = ?, last_latency_ms = ?,
        last_error = ?, next_attempt_at = ?, leased_until = NULL
      WHERE id = ?`,
    [
      attempt.deliveryId,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.error,
      attempt.responseBody,
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
 * logged, its delivery delivered (its slot given back), and the endpoint's streak cleared when it
 * had one: success closes the circuit (no row of a healthy endpoint is locked).
 */
export async function recordSuccess(
  em: Sql,
  attempt: Omit<AttemptRecord, 'status' | 'nextAttemptAt' | 'error'>,
  endpointId: string,
): Promise<void> {
  await executePrepared(
    em,
    `WITH logged AS (
       INSERT INTO webhook_attempt (delivery_id, attempted_at, status_code, latency_ms, error, response_body)
       VALUES (?, ?, ?, ?, NULL, ?)
     ), delivered AS (
       UPDATE webhook_delivery SET status = 'delivered', attempts = attempts + 1, last_status = ?,
              last_latency_ms = ?, last_error = NULL, next_attempt_at = NULL, leased_until = NULL
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
  em: Sql,
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
export async function disableEndpoint(em: Sql, endpointId: string, reason: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE webhook_endpoint SET enabled = false, disabled_reason = ?, updated_at = now()
      WHERE id = ? AND enabled RETURNING id`,
    [reason, endpointId],
  );
  return rows.length > 0;
}

/** The contact address of a tenant (the email of `webhook.endpoint.disabled.v1`). */
export async function tenantContact(em: Sql, tenantId: string): Promise<string | null> {
  const rows = await em.execute<{ contact_email: string }[]>(
    'SELECT contact_email FROM tenant WHERE id = ?',
    [tenantId],
  );
  return rows[0]?.contact_email ?? null;
}

/** Puts a delivery back to pending, due now (a manual retry); false when it is not the tenant's. */
export async function resetDelivery(
  em: Sql,
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

/** The channel a producer of due deliveries NOTIFYs (the API's test and retry); delivery workers LISTEN. */
export const DELIVERY_CHANNEL = 'hireflow_webhook_deliveries';
/** The advisory lock of a claim: one claim at a time across every worker, so the slot counts hold. */
const CLAIM_LOCK = 7_364_227_001;

/** Wakes the delivery workers (at the commit of the caller's transaction, if it is in one). */
export async function notifyDeliveriesDue(em: Sql): Promise<void> {
  await em.execute(`SELECT pg_notify('${DELIVERY_CHANNEL}', '')`);
}

/** On a delivery worker's own connection: it hears `notifyDeliveriesDue`. */
export async function listenForDueDeliveries(client: {
  query(text: string): Promise<unknown>;
}): Promise<void> {
  await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
}

export interface ClaimedDelivery {
  delivery: DeliveryRow;
  endpoint: EndpointRow;
}

export interface ClaimLimits {
  /** Deliveries to claim at most (the worker's free capacity). */
  capacity: number;
  /** Slots per endpoint: its deliveries in flight across every worker (1 while its circuit is half open). */
  endpointLimit: number;
  /** How long a claimed delivery holds its slot if its attempt is never recorded (its worker died). */
  leaseMs: number;
}

/**
 * Claims due deliveries, with their endpoints, in one round trip: for each
 * endpoint with a free slot, its oldest due deliveries up to its free slots,
 * oldest first across endpoints, up to `capacity`, each leased (a slot taken)
 * for `leaseMs`. An endpoint whose circuit is open gets none; a half-open one
 * only its probe; a disabled one all of its due deliveries (to fail them).
 * One script, `BEGIN; lock; claim; COMMIT`: the advisory lock serialises
 * claims across workers and, in READ COMMITTED, the claim's snapshot is taken
 * after it, so it counts every slot another claim took.
 */
export async function claimDueDeliveries(em: Sql, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  for (const value of Object.values(limits))
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`bad claim limit ${value}`);
  // Simple query protocol (several statements in one message): the integers are inlined, checked above.
  const claim = `WITH clock AS (SELECT clock_timestamp() AS now),
      slots AS (
        SELECT e.id,
               CASE WHEN NOT e.enabled THEN ${limits.capacity}
                    WHEN e.circuit_open_until > clock.now THEN 0
                    WHEN e.circuit_open_until IS NOT NULL AND e.consecutive_failures > 0 THEN 1
                    ELSE ${limits.endpointLimit} END
               - (SELECT count(*) FROM webhook_delivery l
                   WHERE l.endpoint_id = e.id AND l.leased_until IS NOT NULL AND l.leased_until > clock.now
                     AND e.enabled) AS free
          FROM webhook_endpoint e, clock
      ),
      picked AS (
        SELECT d.id FROM slots s, clock CROSS JOIN LATERAL (
          SELECT id, next_attempt_at, created_at FROM webhook_delivery
           WHERE endpoint_id = s.id AND status = 'pending' AND next_attempt_at <= clock.now
             AND (leased_until IS NULL OR leased_until <= clock.now)
           ORDER BY next_attempt_at, created_at
           LIMIT greatest(s.free, 0)
        ) d
         WHERE s.free > 0
         ORDER BY d.next_attempt_at, d.created_at
         LIMIT ${limits.capacity}
      )
    UPDATE webhook_delivery d SET leased_until = clock.now + ${limits.leaseMs} * interval '1 millisecond'
      FROM picked, clock, webhook_endpoint e
     WHERE d.id = picked.id AND e.id = d.endpoint_id
    RETURNING to_jsonb(d.*) AS delivery, to_jsonb(e.*) AS endpoint`;
  // The Database's own pool (no connection of its own).
  const client = await poolOf(em).connect();
  try {
    const results = (await client.query(
      `BEGIN; SELECT pg_advisory_xact_lock(${CLAIM_LOCK}); ${claim}; COMMIT`,
    )) as unknown as { rows: { delivery: DeliveryRecord; endpoint: EndpointRecord }[] }[];
    client.release();
    return results[2]!.rows.map((r) => ({
      delivery: toDelivery(r.delivery),
      endpoint: toEndpoint(r.endpoint),
    }));
  } catch (error) {
    // The script stops at its error with the transaction open: this connection goes.
    client.release(true);
    throw error;
  }
}
