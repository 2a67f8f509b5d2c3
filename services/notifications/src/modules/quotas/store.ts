// The abuse controls' data (docs/security.md, API6): the admission check of
// a new intent, each tenant's quota and each address's cap, per UTC day.
import type { Sql } from '@hireflow/db';
import type { TemplateName } from '../../db/notification-log.ts';

/** The lowercase address's SHA-256, as the per-address cap keeps it (a statement fragment, one parameter). */
export const ADDRESS_DIGEST = "sha256(convert_to(lower(?::text), 'UTF8'))";
/** Today in UTC (a statement fragment). */
export const TODAY = "(now() AT TIME ZONE 'utc')::date";

/** Gives back one email of the tenant's quota for today (taken for an intent that was then held). */
export async function returnDailyQuota(em: Sql, tenantId: string): Promise<void> {
  await em.execute(
    `UPDATE tenant_email_quota SET used = used - 1 WHERE tenant_id = ? AND day = ${TODAY} AND used > 0`,
    [tenantId],
  );
}

/** Takes one email of the tenant's quota for today (UTC); false when today's quota is used up. */
export async function takeDailyQuota(em: Sql, tenantId: string, quota: number): Promise<boolean> {
  const rows = await em.execute<{ used: number }[]>(
    `INSERT INTO tenant_email_quota (tenant_id, day, used) VALUES (?, ${TODAY}, 1)
     ON CONFLICT (tenant_id, day) DO UPDATE SET used = tenant_email_quota.used + 1
       WHERE tenant_email_quota.used < ?
     RETURNING used`,
    [tenantId, quota],
  );
  return rows.length > 0;
}

/** Takes one email of the address's cap for today (UTC), whatever the tenant; false when it is used up. */
export async function takeRecipientCap(em: Sql, recipient: string, cap: number): Promise<boolean> {
  const rows = await em.execute<{ used: number }[]>(
    `INSERT INTO recipient_email_quota (address_digest, day, used) VALUES (${ADDRESS_DIGEST}, ${TODAY}, 1)
     ON CONFLICT (address_digest, day) DO UPDATE SET used = recipient_email_quota.used + 1
       WHERE recipient_email_quota.used < ?
     RETURNING used`,
    [recipient, cap],
  );
  return rows.length > 0;
}

/** Forgets the per-day counters of days before yesterday (UTC): nothing reads them any more. */
export async function pruneDailyCounters(em: Sql): Promise<void> {
  await em.execute(`DELETE FROM recipient_email_quota WHERE day < ${TODAY} - 1`);
  await em.execute(`DELETE FROM tenant_email_quota WHERE day < ${TODAY} - 1`);
}

/**
 * The lock a welcome email's admission takes on its address, for the rest of
 * the transaction (a statement fragment, one parameter: the address): intents
 * to one address wait in turn, so the welcome cap counts them all. It must be
 * taken by a statement BEFORE the one that counts (recordAndCheck): a
 * statement in READ COMMITTED reads from the snapshot it started with, so a
 * count in the statement that waited for the lock would miss the welcome its
 * holder committed meanwhile.
 */
export const ADDRESS_LOCK =
  'FROM (SELECT pg_advisory_xact_lock(hashtextextended(lower(?::text), 7))) AS address_lock';

/** What admission found: see admissionCtes. */
export interface AdmissionCheck {
  suppressed: boolean;
  /** Welcome emails to the address in the window (0 for other templates). */
  recentWelcomes: number;
  /** One email of today's quota was taken (only when neither suppressed nor over the welcome cap). */
  quotaTaken: boolean;
  /** One email of the address's daily cap was taken (only when the tenant's quota was). */
  recipientTaken: boolean;
}

/** The columns admissionCtes gives its statement's result (from its CTEs). */
export const ADMISSION_COLUMNS = `coalesce((SELECT suppressed FROM checked), false) AS suppressed,
       coalesce((SELECT recent FROM checked), 0) AS recent,
       EXISTS (SELECT 1 FROM quota) AS taken,
       EXISTS (SELECT 1 FROM recipient) AS recipient_taken`;

export interface AdmissionRow {
  suppressed: boolean;
  recent: string | number;
  taken: boolean;
  recipient_taken: boolean;
}

export const admissionOf = (row: AdmissionRow): AdmissionCheck => ({
  suppressed: row.suppressed,
  recentWelcomes: Number(row.recent),
  quotaTaken: row.taken,
  recipientTaken: row.recipient_taken,
});

/**
 * Suppression, the welcome cap, the tenant's daily quota and the address's
 * daily cap as three CTEs of a caller's statement (`checked`, `quota`,
 * `recipient`; ADMISSION_COLUMNS reads them), run only when the caller's CTE
 * `gate` has a row: the suppression list, recent welcomes to the address
 * other than this key and not refused, then the two counters. The quota is
 * taken only for an intent that is neither suppressed nor over the welcome
 * cap, and the address's cap only when the quota was. For a welcome email the
 * statement must come after one that took ADDRESS_LOCK, so that the count
 * sees every welcome committed before. A quota taken for an address over its
 * cap is given back with returnDailyQuota. Parameters cast, for a prepared
 * statement.
 */
export function admissionCtes(
  gate: string,
  intent: { key: string; tenantId: string; recipient: string; template: TemplateName },
  policy: { welcomeWithinMs: number; welcomeCap: number; quota: number; recipientCap: number },
): { sql: string; params: unknown[] } {
  const welcome = intent.template === 'welcome';
  return {
    sql: `checked AS (
       SELECT EXISTS (SELECT 1 FROM suppression WHERE address = lower(?::text)) AS suppressed,
              CASE WHEN ?::boolean THEN (
                SELECT count(*) FROM notification_log
                 WHERE template = 'welcome' AND lower(recipient) = lower(?::text) AND key <> ?::text AND status <> 'suppressed'
                   AND created_at > now() - ?::float8 * interval '1 millisecond')
              ELSE 0 END AS recent
         FROM ${gate}
     ), quota AS (
       INSERT INTO tenant_email_quota (tenant_id, day, used)
       SELECT ?::uuid, ${TODAY}, 1 FROM checked
        WHERE NOT checked.suppressed AND checked.recent < ?::bigint
       ON CONFLICT (tenant_id, day) DO UPDATE SET used = tenant_email_quota.used + 1
         WHERE tenant_email_quota.used < ?::integer
       RETURNING used
     ), recipient AS (
       INSERT INTO recipient_email_quota (address_digest, day, used)
       SELECT ${ADDRESS_DIGEST}, ${TODAY}, 1 FROM quota
       ON CONFLICT (address_digest, day) DO UPDATE SET used = recipient_email_quota.used + 1
         WHERE recipient_email_quota.used < ?::integer
       RETURNING used
     )`,
    params: [
      intent.recipient,
      welcome,
      intent.recipient,
      intent.key,
      policy.welcomeWithinMs,
      intent.tenantId,
      welcome ? policy.welcomeCap : Number.MAX_SAFE_INTEGER,
      policy.quota,
      intent.recipient,
      policy.recipientCap,
    ],
  };
}
