import { randomBytes, randomUUID } from 'node:crypto';
import { createEvent, signApiKeyEvent } from '@hireflow/contracts';
import { hashApiKey } from '@hireflow/runtime';
import { describe, expect, it } from 'vitest';
import { png } from './fixtures/images.ts';
import { filePart, useMediaHarness } from './harness.ts';

// media authenticates with its projection of jobs' keys, fed through its
// inbox (SNS → SQS → consumer), in whatever order and however often the
// events arrive.
// jobs signs its API-key events with APIKEY_EVENT_KEY; media, holding it, refuses others.
const EVENT_KEY = `test-apikey-event-key-${randomBytes(16).toString('hex')}`;
const h = useMediaHarness('media-api-keys', { env: { APIKEY_EVENT_KEY: EVENT_KEY } });

const source = { source: 'hireflow/jobs' } as const;

function newKey() {
  const key = `hf_${randomBytes(32).toString('base64url')}`;
  return { key, keyId: randomUUID(), tenantId: randomUUID(), keyHash: hashApiKey(key) };
}
const issued = (k: ReturnType<typeof newKey>, signingKey: string | null = EVENT_KEY) => {
  const data = {
    keyId: k.keyId,
    tenantId: k.tenantId,
    keyHash: k.keyHash,
    issuedAt: new Date().toISOString(),
  };
  const signature = signingKey && signApiKeyEvent(signingKey, { type: 'apikey.issued.v1', data });
  return createEvent('apikey.issued.v1', signature ? { ...data, signature } : data, {
    ...source,
    subject: k.keyId,
  });
};
const revoked = (k: ReturnType<typeof newKey>, signingKey: string | null = EVENT_KEY) => {
  const data = { keyId: k.keyId, tenantId: k.tenantId, revokedAt: new Date().toISOString() };
  const signature = signingKey && signApiKeyEvent(signingKey, { type: 'apikey.revoked.v1', data });
  return createEvent('apikey.revoked.v1', signature ? { ...data, signature } : data, {
    ...source,
    subject: k.keyId,
  });
};

const uploadWith = async (key: string) =>
  h.upload(
    [filePart(await png(16, 16))],
    {},
    { tenantId: '', keyId: '', key, auth: { authorization: `Bearer ${key}` } },
  );
const known = (keyId: string) => h.admin.inject({ method: 'GET', url: `/internal/api-keys/${keyId}` });

describe('API10 unsafe consumption: events are not credentials', () => {
  it('refuses a forged apikey.issued.v1 (no signature, or one made with another key) as poison: its key gets 401 at media', async () => {
    for (const signingKey of [null, 'a-key-that-is-not-jobs-own-0123456789abcdef']) {
      const k = newKey();
      const forged = issued(k, signingKey);
      await h.publish(forged);
      const dead = await h.spy.waitForDeadLettered({ eventId: forged.id });
      expect(`${dead.reason ?? ''} ${String(dead.error ?? '')}`).toMatch(/signature/);
      expect((await known(k.keyId)).statusCode).toBe(404);
      const res = await uploadWith(k.key);
      expect(res.statusCode).toBe(401);
    }
  });

  it('refuses a forged apikey.revoked.v1: a signed key stays active', async () => {
    const k = newKey();
    const issue = issued(k);
    await h.publish(issue);
    await h.spy.waitForHandled(issue.id);
    const forged = revoked(k, null);
    await h.publish(forged);
    await h.spy.waitForDeadLettered({ eventId: forged.id });
    expect((await known(k.keyId)).json()).toMatchObject({ active: true });
  });
});

describe('the API-key projection', () => {
  it('learns an issued key from the inbox; the key then uploads for its tenant', async () => {
    const k = newKey();
    expect((await known(k.keyId)).statusCode).toBe(404);
    const event = issued(k);
    await h.publish(event);
    await h.spy.waitForHandled(event.id);
    expect((await known(k.keyId)).json()).toEqual({ keyId: k.keyId, tenantId: k.tenantId, active: true });
    const res = await uploadWith(k.key);
    expect(res.statusCode).toBe(202);
    const view = await h.app.inject({
      method: 'GET',
      url: `/v1/uploads/${res.json().id}`,
      headers: { authorization: `Bearer ${k.key}` },
    });
    expect(view.statusCode).toBe(200);
  });

  it('applies a repeated announcement once, and keeps a key revoked whatever order the events come in', async () => {
    const k = newKey();
    const revocation = revoked(k);
    await h.publish(revocation);
    await h.spy.waitForHandled(revocation.id);
    expect((await known(k.keyId)).json()).toMatchObject({ active: false });
    const issue = issued(k);
    await h.publish(issue);
    await h.spy.waitForHandled(issue.id);
    await h.publish(issue); // announced again (pnpm cli api-key announce): the same event id
    await h.spy.waitForCount({ eventId: issue.id, outcome: 'handled' }, 2);
    expect((await known(k.keyId)).json()).toMatchObject({ active: false });
    const res = await uploadWith(k.key);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED', errors: [{ field: 'authorization' }] });
  });

  it('refuses a key once its revocation arrives', async () => {
    const k = newKey();
    const issue = issued(k);
    await h.publish(issue);
    await h.spy.waitForHandled(issue.id);
    const revocation = revoked(k);
    await h.publish(revocation);
    await h.spy.waitForHandled(revocation.id);
    expect((await known(k.keyId)).json()).toMatchObject({ active: false });
    expect((await uploadWith(k.key)).statusCode).toBe(401);
  });

  it('answers 404 for an unknown or malformed key id on the admin port, and serves it nowhere else', async () => {
    expect((await known(randomUUID())).statusCode).toBe(404);
    expect((await known('../../etc')).statusCode).toBe(404);
    expect(
      (await h.app.inject({ method: 'GET', url: `/internal/api-keys/${h.tenants.a.keyId}` })).statusCode,
    ).toBe(404);
    expect((await known(h.tenants.a.keyId)).json()).toMatchObject({ active: true });
  });
});
