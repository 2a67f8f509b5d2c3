import type { Database } from '@hireflow/db';
import type { EmailQueue, EmailTasks } from '../intents/email-queue.ts';
import { heldIntents, setIntentStatus } from '../intents/store.ts';
import { pruneDailyCounters, takeDailyQuota, takeRecipientCap } from '../quotas/store.ts';

/** Thrown inside the release transaction to undo the quota taken for an address over its cap. */
class OverCap extends Error {}

/**
 * Emails held over their tenant's daily quota or their address's daily cap
 * go out, oldest first, as far as today's quota and cap allow: each is queued
 * again in the transaction that takes its share of both, then gets its job.
 * Counters of past days are forgotten. `keys`: only these (the summaries
 * a contact's confirmation just moved to held). Returns the keys released.
 */
export async function releaseHeldEmails(
  orm: Database,
  emails: EmailQueue<EmailTasks>,
  options: { tenantDailyQuota: number; recipientDailyCap: number; limit?: number; keys?: string[] },
): Promise<string[]> {
  if (options.keys?.length === 0) return [];
  if (!options.keys) await pruneDailyCounters(orm.em.fork());
  const released: string[] = [];
  const exhausted = new Set<string>();
  const capped = new Set<string>();
  for (const held of await heldIntents(orm.em.fork(), options.limit ?? 500, options.keys)) {
    const address = held.recipient.toLowerCase();
    if (exhausted.has(held.tenant_id) || capped.has(address)) continue;
    const taken = await orm.em
      .fork()
      .transactional(async (tx) => {
        if (!(await takeDailyQuota(tx, held.tenant_id, options.tenantDailyQuota))) return 'quota' as const;
        if (!(await takeRecipientCap(tx, held.recipient, options.recipientDailyCap))) throw new OverCap();
        await setIntentStatus(tx, held.key, 'queued', null);
        return 'taken' as const;
      })
      .catch((error: unknown) => {
        if (error instanceof OverCap) return 'cap' as const;
        throw error;
      });
    if (taken === 'quota') exhausted.add(held.tenant_id);
    if (taken === 'cap') capped.add(address);
    if (taken !== 'taken') continue;
    // Mail held over a quota or a cap is a flood by definition: the bulk lane.
    await emails.enqueue([
      { key: held.key, template: held.template, tenantId: held.tenant_id, lane: 'bulk' },
    ]);
    released.push(held.key);
  }
  return released;
}
