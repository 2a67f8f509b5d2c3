import type { MikroORM } from '@hireflow/db';
import { heldIntents, setIntentStatus, takeDailyQuota } from '../intents/store.ts';
import type { EmailQueue } from './queue.ts';

/**
 * Emails held over their tenant's daily quota go out, oldest first, as far as
 * today's quota allows: each is queued again in the transaction that takes
 * its share of the quota, then gets its job. Returns the keys released.
 */
export async function releaseHeldEmails(
  orm: MikroORM,
  emails: EmailQueue,
  options: { tenantDailyQuota: number; limit?: number },
): Promise<string[]> {
  const released: string[] = [];
  const exhausted = new Set<string>();
  for (const held of await heldIntents(orm.em.fork(), options.limit ?? 500)) {
    if (exhausted.has(held.tenant_id)) continue;
    const taken = await orm.em.fork().transactional(async (tx) => {
      if (!(await takeDailyQuota(tx, held.tenant_id, options.tenantDailyQuota))) return false;
      await setIntentStatus(tx, held.key, 'queued', null);
      return true;
    });
    if (!taken) {
      exhausted.add(held.tenant_id);
      continue;
    }
    // Mail held over a quota is a tenant's flood by definition: the bulk lane.
    await emails.enqueue([
      { key: held.key, template: held.template, tenantId: held.tenant_id, lane: 'bulk' },
    ]);
    released.push(held.key);
  }
  return released;
}
