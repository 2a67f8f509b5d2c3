// The daily counters of the abuse controls (docs/security.md, API6): each
// tenant's quota and each address's cap, per UTC day.
import type { EntityManager } from '@hireflow/db';

/** The lowercase address's SHA-256, as the per-address cap keeps it (a statement fragment, one parameter). */
export const ADDRESS_DIGEST = "sha256(convert_to(lower(?), 'UTF8'))";
/** Today in UTC (a statement fragment). */
export const TODAY = "(now() AT TIME ZONE 'utc')::date";

/** Gives back one email of the tenant's quota for today (taken for an intent that was then held). */
export async function returnDailyQuota(em: EntityManager, tenantId: string): Promise<void> {
  await em.execute(
    `UPDATE tenant_email_quota SET used = used - 1 WHERE tenant_id = ? AND day = ${TODAY} AND used > 0`,
    [tenantId],
  );
}

/** Takes one email of the tenant's quota for today (UTC); false when today's quota is used up. */
export async function takeDailyQuota(em: EntityManager, tenantId: string, quota: number): Promise<boolean> {
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
export async function takeRecipientCap(em: EntityManager, recipient: string, cap: number): Promise<boolean> {
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
export async function pruneDailyCounters(em: EntityManager): Promise<void> {
  await em.execute(`DELETE FROM recipient_email_quota WHERE day < ${TODAY} - 1`);
  await em.execute(`DELETE FROM tenant_email_quota WHERE day < ${TODAY} - 1`);
}
