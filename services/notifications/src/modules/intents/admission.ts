import type { Sql } from '@hireflow/db';
import type { Logger } from '@hireflow/messaging';
import { type AdmissionCheck, returnDailyQuota } from '../quotas/store.ts';
import { type EmailIntent, recordAndCheck } from './store.ts';

const DAY_MS = 24 * 3_600_000;

/** The abuse controls every new email intent passes (docs/security.md, API6). */
export interface AdmissionPolicy {
  /** Welcome emails one address gets per 24 h, whatever the tenants registering it. */
  welcomePerAddressPerDay: number;
  /** Emails one tenant's events may cause per UTC day; beyond, they are held, never dropped. */
  tenantDailyQuota: number;
  /** Emails one address gets per UTC day, whatever the tenants and templates; beyond, they are held. */
  recipientDailyCap: number;
}

/** `capped`: held over the address's daily cap (a metric outcome of its own). */
export type Refusal = { status: 'suppressed' | 'held'; reason: string; outcome?: 'capped' };

/** The admission limits of a policy, as the check takes them. */
const admissionLimits = (policy: AdmissionPolicy) => ({
  welcomeWithinMs: DAY_MS,
  welcomeCap: policy.welcomePerAddressPerDay,
  quota: policy.tenantDailyQuota,
  recipientCap: policy.recipientDailyCap,
});

/**
 * Records a new email intent and decides whether it may go out now: not to
 * an address that unsubscribed, not a welcome email beyond the per-address
 * cap (a tenant registering strangers' addresses cannot make Hireflow mail
 * them), and within its tenant's daily quota and its address's daily cap
 * across all tenants and templates (an intent beyond either is held,
 * counted and logged, and goes out once a later day allows: a tenant, or
 * several, cannot make Hireflow flood one address). Runs in the handler's
 * transaction: the record and the check are one statement (recordAndCheck),
 * after the address's lock for a welcome email; an intent admitted takes one
 * email of each. `recorded` false: the key was recorded before, nothing was
 * decided now.
 */
export async function recordAndAdmit(
  em: Sql,
  intent: EmailIntent,
  policy: AdmissionPolicy,
  log: Logger,
  options: { addressLocked?: boolean } = {},
): Promise<{ recorded: false } | { recorded: true; refusal: Refusal | undefined }> {
  const { recorded, check } = await recordAndCheck(em, intent, admissionLimits(policy), options);
  if (!recorded || !check) return { recorded: false };
  return { recorded: true, refusal: await refusalOf(em, intent, check, policy, log) };
}

async function refusalOf(
  em: Sql,
  intent: Pick<EmailIntent, 'key' | 'tenantId' | 'template'>,
  check: AdmissionCheck,
  policy: AdmissionPolicy,
  log: Logger,
): Promise<Refusal | undefined> {
  if (check.suppressed) {
    return { status: 'suppressed', reason: 'the recipient unsubscribed' };
  }
  if (intent.template === 'welcome' && check.recentWelcomes >= policy.welcomePerAddressPerDay) {
    log.warn(
      { tenantId: intent.tenantId, key: intent.key },
      'welcome email refused: the address had its welcomes today',
    );
    return {
      status: 'suppressed',
      reason: `the address got ${check.recentWelcomes} welcome emails in the last 24 h`,
    };
  }
  if (!check.quotaTaken) {
    log.warn(
      { tenantId: intent.tenantId, key: intent.key, quota: policy.tenantDailyQuota },
      'tenant over its daily email quota: email held until a later day',
    );
    return { status: 'held', reason: `over the tenant's daily email quota (${policy.tenantDailyQuota})` };
  }
  if (!check.recipientTaken) {
    await returnDailyQuota(em, intent.tenantId);
    // The key names ids only (never the address).
    log.warn(
      { tenantId: intent.tenantId, key: intent.key, cap: policy.recipientDailyCap },
      'address over its daily email cap: email held until a later day',
    );
    return {
      status: 'held',
      reason: `over the address's daily email cap (${policy.recipientDailyCap})`,
      outcome: 'capped',
    };
  }
  return undefined;
}
