import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { type EmailSignal, signals } from '@hireflow/telemetry';
import { waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseHeldEmails } from '../src/modules/email/release-held.ts';
import {
  candidateRegistered,
  jobMatched,
  jobPosted,
  matchFound,
  useNotificationsHarness,
  waitForSent,
} from './harness.ts';

// API6 (email bombing across tenants): whatever the tenants and templates,
// one address gets at most EMAILS_PER_ADDRESS_PER_DAY emails a UTC day; the
// rest are held (counted as `capped`, no address in the metric) and go out
// on a later day. Real SMTP server, real Postgres, Redis and the emulator.
const CAP = 3;
const h = useNotificationsHarness('notif-recipient-cap', {
  env: { EMAILS_PER_ADDRESS_PER_DAY: String(CAP) },
});

const outcomes: EmailSignal[] = [];
let stop: () => void = () => undefined;
beforeAll(() => {
  stop = signals.email.subscribe((signal) => outcomes.push(signal));
});
afterAll(() => stop());

/** Waits until no intent of `keys` is still queued (each sent, held or refused); returns them. */
async function settled(keys: string[]) {
  return waitFor(
    async () => {
      const rows = await h.notifications(keys);
      if (rows.length !== keys.length) return undefined;
      const sent = rows.filter((r) => r.status === 'sent').length;
      const waiting = rows.filter((r) => r.status === 'queued').length;
      // Queued ones may be in flight: wait until every one is sent or refused.
      return waiting === 0 && sent <= keys.length ? rows : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `${keys.length} intents settled` },
  );
}

const to = (address: string) => h.smtp.emails.filter((e) => e.envelopeTo.includes(address));

describe('API6: a per-address daily cap across tenants, for every template', () => {
  it('9 postings of 2 tenants matching one address: at most the cap is sent, the rest held and counted', async () => {
    const address = `victim+${randomUUID()}@example.test`;
    const tenants = [randomUUID(), randomUUID()];
    const candidates = tenants.map((tenantId) => candidateRegistered(tenantId, { email: address }));
    for (const event of candidates) {
      await h.publish(event);
      await h.spy.waitForHandled(event.id);
    }
    const keys: string[] = [];
    for (let i = 0; i < 9; i++) {
      const candidate = candidates[i % 2]!;
      const posting = jobPosted(candidate.data.tenantId);
      await h.publish(posting);
      await h.spy.waitForHandled(posting.id);
      await h.publish(matchFound(candidate.data.tenantId, posting.data.jobId, candidate.data.candidateId));
      keys.push(idempotencyKey('match-email', posting.data.jobId, candidate.data.candidateId));
    }
    const welcomes = candidates.map((c) => idempotencyKey('welcome-email', c.data.candidateId));
    const rows = await settled([...welcomes, ...keys]);

    const sent = rows.filter((r) => r.status === 'sent');
    expect(sent).toHaveLength(CAP); // one welcome (the other is refused by the welcome cap) and two matches
    expect(to(address)).toHaveLength(CAP);
    const held = rows.filter((r) => r.status === 'held');
    expect(held).toHaveLength(9 - (CAP - 1));
    for (const row of held) expect(row.error).toBe(`over the address's daily email cap (${CAP})`);
    const capped = outcomes.filter((o) => o.outcome === 'capped');
    expect(capped.length).toBeGreaterThanOrEqual(held.length);
    // The metric carries the template, never the address.
    expect(JSON.stringify(capped)).not.toContain('victim');

    // Nothing more today; on a new day the next ones go, again at most the cap.
    const release = () =>
      releaseHeldEmails(h.deps.orm, h.emails, { tenantDailyQuota: 1000, recipientDailyCap: CAP });
    expect(await release()).toEqual([]);
    await h.deps.orm.em.fork().execute('UPDATE recipient_email_quota SET day = day - 1');
    const released = await release();
    expect(released).toHaveLength(CAP);
    await waitForSent(h, released);
    expect(to(address)).toHaveLength(2 * CAP);
  });

  it('summaries count too: 9 postings of 2 tenants naming one contact address get at most the cap', async () => {
    const address = `recruiter+${randomUUID()}@example.test`;
    const tenants = [randomUUID(), randomUUID()];
    const keys: string[] = [];
    for (let i = 0; i < 9; i++) {
      const tenantId = tenants[i % 2]!;
      const posting = jobPosted(tenantId, { contactEmail: address });
      await h.publish(posting);
      await h.spy.waitForHandled(posting.id);
      await h.publish(jobMatched(tenantId, posting.data.jobId, 2));
      keys.push(idempotencyKey('job-matched', posting.data.jobId));
    }
    const rows = await settled(keys);
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(CAP);
    expect(rows.filter((r) => r.status === 'held')).toHaveLength(9 - CAP);
    expect(to(address)).toHaveLength(CAP);
  });
});
