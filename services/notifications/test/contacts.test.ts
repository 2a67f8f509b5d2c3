import { createHash, randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { jobMatched, jobPosted, useNotificationsHarness, waitForSent } from './harness.ts';

// API6: a posting's contactEmail is whatever the tenant typed. Summaries go
// there only when it is the tenant's own contact (jobs says so:
// contactVerified) or an address that confirmed through the link of a
// confirmation email, one per tenant and address. Real SMTP, Postgres, Redis, emulator.
const h = useNotificationsHarness('notif-contacts');

const confirmationKey = (tenantId: string, address: string) =>
  idempotencyKey('contact-confirmation', tenantId, createHash('sha256').update(address).digest('hex'));

async function postAndMatch(tenantId: string, address: string, contactVerified: boolean) {
  const posting = jobPosted(tenantId, { contactEmail: address, contactVerified });
  await h.publish(posting);
  await h.spy.waitForHandled(posting.id);
  const matched = jobMatched(tenantId, posting.data.jobId, 3);
  await h.publish(matched);
  await h.spy.waitForHandled(matched.id);
  return idempotencyKey('job-matched', posting.data.jobId);
}

/** The confirmation link of the email sent under `key`, as a path of the service port. */
function linkOf(key: string): string {
  const text = h.smtp.byKey(key)[0]!.parsed!.text ?? '';
  const url = new URL(/https?:\/\/\S+\/v1\/contacts\/confirm\?token=[A-Za-z0-9_-]+/.exec(text)![0]);
  return url.pathname + url.search;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const to = (address: string) => h.smtp.emails.filter((e) => e.envelopeTo.includes(address));

describe('API6: summaries only to a confirmed contact address', () => {
  it("the tenant's own contact gets its summary at once", async () => {
    const key = await postAndMatch(randomUUID(), `own+${randomUUID()}@example.test`, true);
    await waitForSent(h, [key]);
  });

  it('an unconfirmed contactEmail gets no summary, one confirmation email; after confirming, the summaries', async () => {
    const tenantId = randomUUID();
    const address = `stranger+${randomUUID()}@example.test`;
    const first = await postAndMatch(tenantId, address, false);
    const second = await postAndMatch(tenantId, address, false);
    const confirmation = confirmationKey(tenantId, address);
    await waitForSent(h, [confirmation]);
    const rows = await h.notifications([first, second]);
    expect(rows.map((r) => r.status)).toEqual(['unconfirmed', 'unconfirmed']);
    // One email only: the confirmation, whatever the number of postings.
    expect(to(address)).toHaveLength(1);
    expect(h.smtp.byKey(confirmation)[0]!.parsed!.subject).toMatch(/Confirm this address/);

    // A GET (a mail scanner opening the link) changes nothing.
    const path = linkOf(confirmation);
    const page = await h.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<form method="post"');
    expect((await h.notifications([first])).map((r) => r.status)).toEqual(['unconfirmed']);

    // A forged or tampered token confirms nothing.
    const token = new URL(path, 'http://x').searchParams.get('token')!;
    const tampered = `${token.slice(0, -3)}${token.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    for (const bad of [tampered, 'forged']) {
      const res = await h.app.inject({
        method: 'POST',
        url: `/v1/contacts/confirm?token=${bad}`,
        headers: form,
      });
      expect(res.statusCode).toBe(400);
    }

    const confirmed = await h.app.inject({ method: 'POST', url: path, headers: form, payload: '' });
    expect(confirmed.statusCode).toBe(200);
    await waitForSent(h, [first, second]);
    expect(to(address)).toHaveLength(3);

    // Confirmed for this tenant: its next posting's summary goes at once, no new confirmation.
    const third = await postAndMatch(tenantId, address, false);
    await waitForSent(h, [third]);
    expect(to(address)).toHaveLength(4);
  });

  it("one tenant's confirmation is not another's", async () => {
    const address = `shared+${randomUUID()}@example.test`;
    const [a, b] = [randomUUID(), randomUUID()];
    await postAndMatch(a, address, false);
    await waitForSent(h, [confirmationKey(a, address)]);
    const path = linkOf(confirmationKey(a, address));
    expect((await h.app.inject({ method: 'POST', url: path, headers: form, payload: '' })).statusCode).toBe(
      200,
    );

    const ofB = await postAndMatch(b, address, false);
    await waitForSent(h, [confirmationKey(b, address)]);
    await waitFor(async () => (await h.notification(ofB))?.status === 'unconfirmed' || undefined, {
      timeoutMs: 10_000,
      message: "B's summary waiting",
    });
    expect(h.smtp.byKey(ofB)).toHaveLength(0);
  });
});
