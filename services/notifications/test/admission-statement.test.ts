import { randomUUID } from 'node:crypto';
import type { Sql } from '@hireflow/db';
import { createLogger } from '@hireflow/runtime';
import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { recordAndAdmit } from '../src/modules/intents/admission.ts';
import type { EmailIntent } from '../src/modules/intents/store.ts';
import { upsertCandidateLockingAddress } from '../src/modules/projections/store.ts';
import { suppress } from '../src/modules/suppression/store.ts';
import { useNotificationsHarness } from './harness.ts';

// The inbox records a new intent and runs its admission check in one
// statement (recordAndCheck), after the candidate's upsert took the address's
// lock in the statement before. These pin what the two statements must keep:
// an intent is recorded and admitted once whatever the deliveries, nothing is
// taken for a refused one, and a welcome that waited for the address's lock
// counts the welcome its holder committed (the cap holds across consumers).

const h = useNotificationsHarness('notif-admission-stmt', { worker: false });
const log = createLogger('test', 'silent');
const policy = { welcomePerAddressPerDay: 1, tenantDailyQuota: 100, recipientDailyCap: 100 };

function welcomeOf(tenantId: string, address: string): EmailIntent<'welcome'> {
  return {
    key: `welcome-email:${randomUUID()}`,
    tenantId,
    eventId: randomUUID(),
    recipient: address,
    template: 'welcome',
    params: { name: 'Ada' },
    keepUntil: new Date(Date.now() + 86_400_000),
  };
}

/** What a candidate.registered.v1 handler writes: the locking upsert, then the intent with its admission. */
async function registerWelcome(em: Sql, intent: EmailIntent<'welcome'>) {
  await upsertCandidateLockingAddress(em, {
    candidateId: randomUUID(),
    tenantId: intent.tenantId,
    name: intent.params.name,
    email: intent.recipient,
    headline: 'Engineer',
    skills: [],
    location: 'Remote',
  });
  return recordAndAdmit(em, intent, policy, log, { addressLocked: true });
}

const quotaUsed = async (tenantId: string) => {
  const [row] = await h.deps.orm.em
    .fork()
    .execute<{ used: number }[]>('SELECT used FROM tenant_email_quota WHERE tenant_id = ?', [tenantId]);
  return row?.used ?? 0;
};

describe('the intent and its admission in one statement', () => {
  it('records and admits a key once: a second delivery records nothing and takes no quota', async () => {
    const tenantId = randomUUID();
    const intent = welcomeOf(tenantId, `${randomUUID()}@example.test`);
    const first = await h.deps.orm.em.fork().transactional((tx) => registerWelcome(tx, intent));
    const again = await h.deps.orm.em.fork().transactional((tx) => registerWelcome(tx, intent));
    expect(first).toEqual({ recorded: true, refusal: undefined });
    expect(again).toEqual({ recorded: false });
    expect(await quotaUsed(tenantId)).toBe(1);
  });

  it('takes no quota for a suppressed address, nor for a welcome over the cap', async () => {
    const tenantId = randomUUID();
    const suppressed = `${randomUUID()}@example.test`;
    await suppress(h.deps.orm.em.fork(), suppressed, 'test');
    const refused = await h.deps.orm.em
      .fork()
      .transactional((tx) => registerWelcome(tx, welcomeOf(tenantId, suppressed)));
    expect(refused).toMatchObject({ recorded: true, refusal: { status: 'suppressed' } });

    const address = `${randomUUID()}@example.test`;
    await h.deps.orm.em.fork().transactional((tx) => registerWelcome(tx, welcomeOf(tenantId, address)));
    const second = await h.deps.orm.em
      .fork()
      .transactional((tx) => registerWelcome(tx, welcomeOf(tenantId, address)));
    expect(second).toMatchObject({ recorded: true, refusal: { status: 'suppressed' } });
    expect(await quotaUsed(tenantId)).toBe(1);
  });

  it('a welcome that waited for the address lock counts the welcome its holder committed meanwhile', async () => {
    const address = `race-${randomUUID()}@example.test`;
    let release!: () => void;
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // The holder: its welcome recorded and admitted, its transaction kept open.
    const holder = h.deps.orm.em.fork().transactional(async (tx) => {
      const admitted = await registerWelcome(tx, welcomeOf(randomUUID(), address));
      locked();
      await holding;
      return admitted;
    });
    await lockTaken;
    // The waiter (another tenant, the same address) blocks on the lock in its first statement.
    const waiter = h.deps.orm.em
      .fork()
      .transactional((tx) => registerWelcome(tx, welcomeOf(randomUUID(), address)));
    await waitFor(async () => {
      const [row] = await h.deps.orm.em.fork().execute<{ waiting: string }[]>(
        `SELECT count(*) AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
      );
      return Number(row?.waiting) > 0;
    });
    release();
    expect(await holder).toEqual({ recorded: true, refusal: undefined });
    // A count taken from a snapshot older than the holder's commit would admit it.
    expect(await waiter).toMatchObject({ recorded: true, refusal: { status: 'suppressed' } });
  });
});
