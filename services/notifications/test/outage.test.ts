import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { candidateRegistered, useNotificationsHarness, waitForSent } from './harness.ts';

// The SMTP provider refuses connections, then answers 451, then recovers.
// Events keep being consumed and emails queued meanwhile; afterwards each
// email arrives exactly once. SMTP retries back off within 0.2–2 s here.

const tenantId = randomUUID();

const h = useNotificationsHarness('notif-outage');

const keyOf = (e: ReturnType<typeof candidateRegistered>) =>
  idempotencyKey('welcome-email', e.data.candidateId);

/** Every row has failed at least once with an error matching `pattern` (and none was sent). */
const allFailedWith = (keys: string[], pattern: RegExp) =>
  waitFor(
    async () => {
      const rows = await h.notifications(keys);
      return (
        rows.length === keys.length &&
        rows.every((r) => r.status === 'queued' && r.attempts >= 1 && pattern.test(r.error ?? ''))
      );
    },
    { timeoutMs: 20_000, intervalMs: 100, message: `${keys.length} emails retried after ${pattern}` },
  );

describe('an SMTP outage', () => {
  it('delays emails without losing or doubling any, and never holds up the inbox', async () => {
    // Warm the SMTP pool so that the outage cuts live connections too.
    const warm = candidateRegistered(tenantId);
    await h.publish(warm);
    await waitForSent(h, [keyOf(warm)]);

    await h.smtp.stop();
    const refused = Array.from({ length: 10 }, () => candidateRegistered(tenantId));
    await h.publishAll(refused);
    await Promise.all(refused.map((e) => h.spy.waitForHandled(e.id)));
    await allFailedWith(refused.map(keyOf), /ECONNREFUSED|connect/i);

    h.smtp.mode = 'tempfail';
    await h.smtp.restart();
    const throttled = Array.from({ length: 5 }, () => candidateRegistered(tenantId));
    await h.publishAll(throttled);
    await Promise.all(throttled.map((e) => h.spy.waitForHandled(e.id)));
    await allFailedWith([...refused, ...throttled].map(keyOf), /451/);
    expect(h.smtp.emails).toHaveLength(1);

    h.smtp.mode = 'accept';
    const keys = [...refused, ...throttled].map(keyOf);
    const rows = await waitForSent(h, keys, 30_000);
    for (const key of keys) expect(h.smtp.byKey(key), key).toHaveLength(1);
    expect(rows.every((r) => r.attempts >= 2 && r.error === null)).toBe(true);
    expect(await h.emails.tasks.deadLetterCount()).toBe(0);

    // The inbox never waited on SMTP: every event was handled at its first receive.
    const records = h.spy.all({ type: 'candidate.registered.v1' });
    expect(records.every((r) => r.outcome === 'handled' && r.receiveCount === 1)).toBe(true);
  }, 90_000);
});
