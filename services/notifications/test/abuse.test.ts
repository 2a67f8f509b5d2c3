import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { keyDigest } from '@hireflow/testing/smtp';
import { describe, expect, it } from 'vitest';
import { releaseHeldEmails } from '../src/modules/email/release-held.ts';
import { candidateRegistered, useNotificationsHarness, waitForSent } from './harness.ts';

// API6 (unrestricted access to sensitive business flows): email cannot be
// turned into spam. Every email carries a one-click unsubscribe link that
// works and cannot be forged, an address gets one welcome a day whatever the
// tenants registering it, and a tenant's daily quota holds emails back,
// never drops them.

const h = useNotificationsHarness('notif-abuse', { env: { TENANT_DAILY_EMAIL_QUOTA: '2' } });

/** mailparser reads the List-* headers into one `list` header. */
const listHeaders = (key: string) =>
  h.smtp.byKey(key)[0]!.parsed!.headers.get('list') as {
    unsubscribe: { url: string };
    'unsubscribe-post': { name: string };
  };
const unsubscribeLink = (key: string) => listHeaders(key).unsubscribe.url;

async function welcome(tenantId: string, address: string) {
  const event = candidateRegistered(tenantId, { email: address });
  await h.publish(event);
  await h.spy.waitForHandled(event.id);
  return idempotencyKey('welcome-email', event.data.candidateId);
}

describe('API6: one-click unsubscribe (RFC 8058)', () => {
  it('every email carries List-Unsubscribe and List-Unsubscribe-Post, and the key only as a digest', async () => {
    const key = await welcome(randomUUID(), `${randomUUID()}@example.test`);
    await waitForSent(h, [key]);
    const headers = h.smtp.byKey(key)[0]!.parsed!.headers;
    expect(listHeaders(key)['unsubscribe-post'].name).toBe('List-Unsubscribe=One-Click');
    expect(unsubscribeLink(key)).toMatch(
      /^http:\/\/127\.0\.0\.1:3003\/v1\/unsubscribe\?token=[A-Za-z0-9_-]+$/,
    );
    expect(headers.get('x-idempotency-key')).toBe(keyDigest(key));
    expect(h.smtp.byKey(key)[0]!.parsed!.text).toContain(unsubscribeLink(key));
  });

  it('a GET shows a button and changes nothing; the one-click POST suppresses the address; its next email is not sent', async () => {
    const address = `${randomUUID()}@example.test`;
    const first = await welcome(randomUUID(), address);
    await waitForSent(h, [first]);
    const path = new URL(unsubscribeLink(first)).pathname + new URL(unsubscribeLink(first)).search;

    const page = await h.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<form method="post"');
    const clicked = await h.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(clicked.statusCode).toBe(200);
    expect(clicked.body).toContain('You are unsubscribed');

    // A welcome from another tenant a day later would be sent; to an unsubscribed address it is not.
    await h.deps.orm.em
      .fork()
      .execute(`UPDATE notification_log SET created_at = created_at - interval '2 days' WHERE key = ?`, [
        first,
      ]);
    const second = await welcome(randomUUID(), address.toUpperCase());
    expect(await h.notification(second)).toMatchObject({
      status: 'suppressed',
      error: 'the recipient unsubscribed',
    });
    expect(h.smtp.byKey(second)).toHaveLength(0);
  });

  it('a forged or tampered token unsubscribes nobody', async () => {
    const key = await welcome(randomUUID(), `${randomUUID()}@example.test`);
    await waitForSent(h, [key]);
    const link = new URL(unsubscribeLink(key));
    const token = link.searchParams.get('token')!;
    const tampered = `${token.slice(0, -3)}${token.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    for (const bad of [tampered, 'forged', '']) {
      const res = await h.app.inject({
        method: 'POST',
        url: `/v1/unsubscribe?token=${encodeURIComponent(bad)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
      expect(res.statusCode, bad).toBe(400);
    }
    const rows = await h.deps.orm.em
      .fork()
      .execute<{ n: number }[]>('SELECT count(*)::int AS n FROM suppression WHERE address = ?', [
        h.smtp.byKey(key)[0]!.envelopeTo[0],
      ]);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('API6: email bombing', () => {
  it('one welcome per address per day across tenants: a second tenant registering the same address sends nothing', async () => {
    const address = `victim+${randomUUID()}@example.test`;
    const first = await welcome(randomUUID(), address);
    const second = await welcome(randomUUID(), address);
    await waitForSent(h, [first]);
    expect(await h.notification(second)).toMatchObject({ status: 'suppressed' });
    expect(h.smtp.emails.filter((e) => e.envelopeTo.includes(address))).toHaveLength(1);
  });

  it("holds a tenant's emails over its daily quota (never drops them) and sends them when a new day's quota allows", async () => {
    const tenantId = randomUUID();
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push(await welcome(tenantId, `${randomUUID()}@example.test`));
    await waitForSent(h, keys.slice(0, 2));
    expect(await h.notification(keys[2]!)).toMatchObject({ status: 'held' });
    expect(h.smtp.byKey(keys[2]!)).toHaveLength(0);

    // Nothing is released while today's quota is used up …
    expect(
      await releaseHeldEmails(h.deps.orm, h.emails, { tenantDailyQuota: 2, recipientDailyCap: 100 }),
    ).not.toContain(keys[2]);
    // … and the held email goes out once a new day starts.
    await h.deps.orm.em
      .fork()
      .execute('UPDATE tenant_email_quota SET day = day - 1 WHERE tenant_id = ?', [tenantId]);
    expect(
      await releaseHeldEmails(h.deps.orm, h.emails, { tenantDailyQuota: 2, recipientDailyCap: 100 }),
    ).toContain(keys[2]);
    await waitForSent(h, [keys[2]!]);
  });
});
