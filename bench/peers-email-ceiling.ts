// The ceiling of the welcome-email path (issue 30): the Postgres writes
// Hireflow's guarantees need and the peer pipeline does not have, issued with
// plain `pg` the cheapest way a hand-written pipeline would, on tables of the
// bench's own (created here, dropped by `drop`, named with a prefix unique to
// the run). `bench/peers-email.bench.ts` runs the peer pipeline with these
// writes added as its third side; docs/performance.md, "The ceiling: the peer
// plus Hireflow's durable writes", says which statement stands for which
// guarantee and what was left out.
//
// Per email, as services/notifications does it (docs/performance.md, "The
// database work of one welcome email, counted"): a tenth of the inbox batch's
// two round trips (BEGIN with the event keys' claim; the completions with
// COMMIT), the candidate's upsert with the address's lock, the intent with
// its admission (one statement), then the send's claim and, after the SMTP
// 250, its record (two autocommitted statements): five statements and a
// fifth, 2.1 commits, the same rows and index entries in tables of the same
// shape (columns, indexes, fillfactor).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { CloudEvent } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import { messageIdFor } from '@hireflow/notifications/email';
import pg from 'pg';

/** What the ceiling adds to the peer pipeline. */
export interface DurableWrites {
  /** Table names' prefix (the run's): the per-table writes are read by it. */
  prefix: string;
  /** The inbox's writes for a receive batch, in one transaction committed before the batch's jobs are added. */
  recordBatch(events: CloudEvent[]): Promise<void>;
  /**
   * The send's claim, then `deliver` (the SMTP send), then its record.
   * `skipped` when the send was not claimed (sent, refused, or a live holder
   * has it): nothing is sent.
   */
  send<T extends { messageId: string; response: string }>(
    key: string,
    deliver: () => Promise<T>,
  ): Promise<T | { skipped: true }>;
  /** Drops the tables and closes the pool. */
  drop(): Promise<void>;
}

/** Hireflow's limits: the per-address welcome cap's window and count (defaults), the bench's quotas. */
const WELCOME_WITHIN_MS = 24 * 3_600_000;
const WELCOME_CAP = 1;
const TENANT_QUOTA = 10_000_000;
const RECIPIENT_CAP = 10_000_000;
/** The inbox's key retention (DEFAULT_RETENTION_MS) and an intent's (a welcome's redelivery horizon, at most). */
const KEY_RETENTION_MS = 15 * 24 * 3_600_000;
const INTENT_KEEP_MS = 400 * 24 * 3_600_000;

export async function startDurableWrites(options: {
  url: string;
  suffix: string;
  poolMax: number;
  leaseMs: number;
}): Promise<DurableWrites> {
  const p = `ceil_${options.suffix}_`;
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolMax });
  // An idle connection ended by the server (the database dropped with FORCE) must not crash the bench.
  pool.on('error', (error) => console.error('ceiling pool', error.message));
  await pool.query(schema(p));
  const sql = statements(p);

  /** Connections that have PREPAREd the batch's two statements (SQL-level: they ride with BEGIN and COMMIT). */
  const prepared = new WeakSet<pg.PoolClient>();
  const literal = (client: pg.PoolClient, value: string) => client.escapeLiteral(value);
  const last = (result: pg.QueryResult | pg.QueryResult[]) =>
    Array.isArray(result) ? result[result.length - 1]! : result;

  return {
    prefix: p,
    async recordBatch(events) {
      const client = await pool.connect();
      let open = false;
      let broken: Error | undefined;
      try {
        if (!prepared.has(client)) {
          await client.query(`PREPARE ${p}claim (jsonb) AS ${sql.claimKeys}`);
          await client.query(`PREPARE ${p}complete (jsonb) AS ${sql.completeKeys}`);
          prepared.add(client);
        }
        open = true;
        // 1. BEGIN and the events' keys, stored completed, in one round trip.
        const keys = JSON.stringify(events.map((e) => e.id));
        const claimed = new Set(
          last(await client.query(`BEGIN;\nEXECUTE ${p}claim(${literal(client, keys)})`)).rows.map(
            (r: { key: string }) => r.key,
          ),
        );
        const completions: string[] = [];
        for (const event of events) {
          // A duplicate (stored before, or twice in the batch) has its writes committed already.
          if (!claimed.delete(event.id)) continue;
          const data = event.data as { candidateId: string; tenantId: string; name: string; email: string };
          const key = idempotencyKey('welcome-email', data.candidateId);
          // 2. The candidate's projection, its address's lock first (the welcome cap counts after it).
          await client.query({
            name: `${p}candidate`,
            text: sql.upsertCandidate,
            values: [data.candidateId, data.tenantId, data.name, data.email],
          });
          // 3. The intent's row and its admission: suppression, welcome cap, tenant quota, address cap.
          const { rows } = await client.query<AdmissionRow>({
            name: `${p}intent`,
            text: sql.recordAndAdmit,
            values: [
              key,
              data.tenantId,
              event.id,
              data.email,
              JSON.stringify({ name: data.name }),
              messageIdFor(key),
              new Date(Date.now() + INTENT_KEEP_MS),
              WELCOME_WITHIN_MS,
              WELCOME_CAP,
              TENANT_QUOTA,
              RECIPIENT_CAP,
            ],
          });
          const refusal = refusalOf(rows[0]);
          // Never in this bench (one address per event, quotas out of reach): the send's claim then finds it unsendable.
          if (refusal) await client.query({ name: `${p}refuse`, text: sql.refuse, values: [key, refusal] });
          // The decision, as Hireflow's handler stores it: what to queue.
          const decision = {
            requests: refusal ? [] : [{ key, template: 'welcome', tenantId: data.tenantId }],
            refused: refusal ? [{ outcome: refusal, template: 'welcome' }] : [],
            run: randomUUID(),
          };
          completions.push(JSON.stringify({ key: event.id, result: decision }));
        }
        // 4. The decisions (HOT updates of `result`) and COMMIT in one round trip.
        await client.query(
          completions.length > 0
            ? `EXECUTE ${p}complete(${literal(client, `[${completions.join(',')}]`)});\nCOMMIT`
            : 'COMMIT',
        );
        open = false;
      } catch (error) {
        broken = error as Error;
        throw error;
      } finally {
        if (open) await client.query('ROLLBACK').catch(() => undefined);
        client.release(broken);
      }
    },

    async send(key, deliver) {
      const token = randomUUID();
      // 5. The claim: one holder at a time, its lease; NOWAIT on a row an inbox batch holds.
      const { rows } = await pool.query<SendClaimRow>({
        name: `${p}claim-send`,
        text: sql.claimSend,
        values: [key, token, options.leaseMs],
      });
      const claim = rows[0];
      if (!claim?.claimed) return { skipped: true };
      if (claim.suppressed) {
        await pool.query({ name: `${p}release`, text: sql.releaseSend, values: [key, token] });
        return { skipped: true };
      }
      if (claim.had_holder) {
        // Taken over from a holder whose lease ran out (never in this bench): its late record gets the grace.
        await delay(options.leaseMs / 2);
        const { rows: now } = await pool.query<{ status: string }>({
          name: `${p}status`,
          text: sql.status,
          values: [key],
        });
        if (now[0]?.status === 'sent') return { skipped: true };
      }
      const accepted = await deliver().catch(async (error: unknown) => {
        // Nothing sent: the retry claims it at once.
        await pool.query({ name: `${p}release`, text: sql.releaseSend, values: [key, token] });
        throw error;
      });
      // 6. The record, which closes the duplicate window (it commits whoever holds the claim).
      await pool.query({
        name: `${p}mark-sent`,
        text: sql.markSent,
        values: [accepted.response.slice(0, 200), accepted.messageId, token, key],
      });
      return accepted;
    },

    async drop() {
      try {
        await pool.query(`SET lock_timeout = '5s'; ${dropSchema(p)}`);
      } finally {
        await pool.end();
      }
    },
  };
}

interface AdmissionRow {
  inserted: boolean;
  suppressed: boolean;
  recent: string;
  taken: boolean;
  recipient_taken: boolean;
}

interface SendClaimRow {
  claimed: boolean;
  suppressed: boolean;
  had_holder: boolean;
}

/** Hireflow's refusals (admission.ts), as the status the intent then gets; undefined when admitted or not new. */
function refusalOf(row: AdmissionRow | undefined): 'suppressed' | 'held' | undefined {
  if (!row?.inserted) return undefined;
  if (row.suppressed || Number(row.recent) >= WELCOME_CAP) return 'suppressed';
  if (!row.taken || !row.recipient_taken) return 'held';
  return undefined;
}

/**
 * The tables of services/notifications' migrations that the welcome path
 * writes or reads, same columns, indexes and fillfactor: a copy by intent
 * (the ceiling's own tables), to keep in step with
 * libs/idempotency/src/migrations.ts and services/notifications/src/db/migrations.ts.
 */
function schema(p: string): string {
  return `
CREATE SEQUENCE ${p}fencing_token_seq AS bigint;
CREATE TABLE ${p}processed_message (
  key text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('in_progress', 'completed')),
  fencing_token bigint NOT NULL,
  lease_expires_at timestamptz,
  result jsonb,
  fingerprint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  expires_at timestamptz NOT NULL,
  CHECK (status = 'completed' OR lease_expires_at IS NOT NULL)
);
CREATE INDEX ${p}processed_message_expires_at_idx ON ${p}processed_message (expires_at);
CREATE TABLE ${p}candidate_projection (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL,
  name text NOT NULL,
  email text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${p}notification_log (
  id bigserial PRIMARY KEY,
  key text NOT NULL UNIQUE,
  tenant_id uuid NOT NULL,
  event_id uuid NOT NULL,
  recipient text NOT NULL,
  template text NOT NULL
    CHECK (template IN ('welcome', 'match', 'job-matched', 'webhook-disabled', 'contact-confirmation')),
  params jsonb NOT NULL,
  message_id text NOT NULL,
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'sent', 'failed', 'suppressed', 'held', 'unconfirmed')),
  attempts integer NOT NULL DEFAULT 0,
  provider_message_id text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  keep_until timestamptz NOT NULL,
  send_token uuid,
  send_lease_until timestamptz
) WITH (fillfactor = 80);
CREATE INDEX ${p}notification_log_recipient_idx ON ${p}notification_log (lower(recipient), id DESC);
CREATE INDEX ${p}notification_log_status_updated_idx ON ${p}notification_log (status, updated_at);
CREATE INDEX ${p}notification_log_keep_until_idx ON ${p}notification_log (keep_until) WHERE status <> 'queued';
CREATE INDEX ${p}notification_log_welcome_idx ON ${p}notification_log (lower(recipient), created_at)
  WHERE template = 'welcome';
CREATE INDEX ${p}notification_log_held_idx ON ${p}notification_log (created_at) WHERE status = 'held';
CREATE INDEX ${p}notification_log_unconfirmed_idx ON ${p}notification_log (tenant_id, lower(recipient))
  WHERE status = 'unconfirmed';
CREATE TABLE ${p}suppression (
  address text PRIMARY KEY,
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${p}tenant_email_quota (
  tenant_id uuid NOT NULL,
  day date NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (tenant_id, day)
);
CREATE TABLE ${p}recipient_email_quota (
  address_digest bytea NOT NULL,
  day date NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (address_digest, day)
);`;
}

function dropSchema(p: string): string {
  const tables = [
    'processed_message',
    'candidate_projection',
    'notification_log',
    'suppression',
    'tenant_email_quota',
    'recipient_email_quota',
  ];
  return `DROP TABLE IF EXISTS ${tables.map((t) => p + t).join(', ')}; DROP SEQUENCE IF EXISTS ${p}fencing_token_seq;`;
}

/** The statements, as services/notifications and libs/idempotency write them, less what serves no guarantee here. */
function statements(p: string) {
  const today = "(now() AT TIME ZONE 'utc')::date";
  return {
    // The batch's keys, inserted completed (with a null result) since nobody sees them before the
    // COMMIT that carries the work: CLAIM_NEW_KEYS_SQL without its session timeout and try-locks.
    claimKeys: `
INSERT INTO ${p}processed_message (key, status, fencing_token, result, created_at, completed_at, expires_at)
SELECT k.key, 'completed', nextval('${p}fencing_token_seq'), 'null'::jsonb,
       statement_timestamp(), statement_timestamp(), statement_timestamp() + interval '${KEY_RETENTION_MS} milliseconds'
  FROM jsonb_array_elements_text($1) AS k (key)
ON CONFLICT (key) DO NOTHING
RETURNING key`,
    // The decisions, `result` alone (no indexed column: HOT when the page has room).
    completeKeys: `
UPDATE ${p}processed_message pm SET result = v.result
  FROM jsonb_to_recordset($1) AS v (key text, result jsonb)
 WHERE pm.key = v.key`,
    // upsertCandidateLockingAddress (the lock's seed differs from Hireflow's: these are the ceiling's own).
    upsertCandidate: `
INSERT INTO ${p}candidate_projection (id, tenant_id, name, email, updated_at)
SELECT $1::uuid, $2::uuid, $3::text, $4::text, now()
  FROM (SELECT pg_advisory_xact_lock(hashtextextended(lower($4::text), 70))) AS address_lock
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, updated_at = now()`,
    // recordAndCheck for a welcome intent (no summary's params to give way to: DO NOTHING).
    recordAndAdmit: `
WITH intent AS (
  INSERT INTO ${p}notification_log (key, tenant_id, event_id, recipient, template, params, message_id, keep_until)
  VALUES ($1::text, $2::uuid, $3::uuid, $4::text, 'welcome', $5::jsonb, $6::text, $7::timestamptz)
  ON CONFLICT (key) DO NOTHING
  RETURNING 1
), checked AS (
  SELECT EXISTS (SELECT 1 FROM ${p}suppression WHERE address = lower($4::text)) AS suppressed,
         (SELECT count(*) FROM ${p}notification_log
           WHERE template = 'welcome' AND lower(recipient) = lower($4::text) AND key <> $1::text
             AND status <> 'suppressed' AND created_at > now() - $8::float8 * interval '1 millisecond') AS recent
    FROM intent
), quota AS (
  INSERT INTO ${p}tenant_email_quota AS q (tenant_id, day, used)
  SELECT $2::uuid, ${today}, 1 FROM checked WHERE NOT checked.suppressed AND checked.recent < $9::bigint
  ON CONFLICT (tenant_id, day) DO UPDATE SET used = q.used + 1 WHERE q.used < $10::integer
  RETURNING used
), recipient AS (
  INSERT INTO ${p}recipient_email_quota AS r (address_digest, day, used)
  SELECT sha256(convert_to(lower($4::text), 'UTF8')), ${today}, 1 FROM quota
  ON CONFLICT (address_digest, day) DO UPDATE SET used = r.used + 1 WHERE r.used < $11::integer
  RETURNING used
)
SELECT EXISTS (SELECT 1 FROM intent) AS inserted,
       coalesce((SELECT suppressed FROM checked), false) AS suppressed,
       coalesce((SELECT recent FROM checked), 0) AS recent,
       EXISTS (SELECT 1 FROM quota) AS taken,
       EXISTS (SELECT 1 FROM recipient) AS recipient_taken`,
    refuse: `UPDATE ${p}notification_log SET status = $2::text, updated_at = now() WHERE key = $1::text`,
    // CLAIM_SEND_SQL without the rolling deploy's legacy claim and the columns the job already carries.
    claimSend: `
WITH target AS (
  SELECT key, status, recipient, send_token, send_lease_until
    FROM ${p}notification_log WHERE key = $1::text FOR UPDATE NOWAIT
), claimed AS (
  UPDATE ${p}notification_log n
     SET send_token = $2::uuid, send_lease_until = clock_timestamp() + $3::float8 * interval '1 millisecond'
    FROM target t
   WHERE n.key = t.key AND t.status IN ('queued', 'failed')
     AND (t.send_token IS NULL OR t.send_lease_until <= clock_timestamp())
  RETURNING n.key
)
SELECT EXISTS (SELECT 1 FROM claimed) AS claimed,
       EXISTS (SELECT 1 FROM ${p}suppression s WHERE s.address = lower(t.recipient)) AS suppressed,
       t.send_token IS NOT NULL AS had_holder
  FROM target t`,
    status: `SELECT status FROM ${p}notification_log WHERE key = $1::text`,
    releaseSend: `UPDATE ${p}notification_log SET send_token = NULL, send_lease_until = NULL
      WHERE key = $1::text AND send_token = $2::uuid`,
    // markSent: records the send whoever holds the claim, ends this holder's.
    markSent: `
UPDATE ${p}notification_log n
   SET status = 'sent', attempts = n.attempts + 1, provider_message_id = $1::text, message_id = $2::text,
       sent_at = now(), error = NULL, updated_at = now(),
       send_lease_until = CASE WHEN n.send_token = $3::uuid THEN NULL ELSE n.send_lease_until END,
       send_token = CASE WHEN n.send_token = $3::uuid THEN NULL ELSE n.send_token END
  FROM (SELECT key, send_token AS holder FROM ${p}notification_log WHERE key = $4::text FOR UPDATE) h
 WHERE n.key = h.key
RETURNING h.holder IS NOT DISTINCT FROM $3::uuid AS held`,
  };
}
