import { randomUUID } from 'node:crypto';
import { topology } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import { percentile, waitFor } from '@hireflow/testing';
import { keyDigest } from '@hireflow/testing/smtp';
import { describe, expect, it } from 'vitest';
import { candidateRegistered, spawnWorkerProcess, useNotificationsHarness, waitForSent } from './harness.ts';

// The worker role as a real process, SIGKILLed in the middle of a burst of
// 200 emails and started again: none may be lost; a duplicate may only be an
// email the SMTP server accepted whose log write had not committed when the
// process died (the window the design leaves open; docs/notifications.md).

const BURST = 200;
const inbox = topology.queues['notifications-inbox']!;
const bulkInbox = topology.queues['notifications-inbox-bulk']!;
const h = useNotificationsHarness('notif-crash', {
  worker: false,
  // Messages in flight when the process dies come back after the visibility timeout: keep it short.
  // Both lanes' queues: a worker consumes both (docs/fairness.md).
  topology: {
    ...topology,
    queues: {
      'notifications-inbox': { ...inbox, visibilityTimeoutSeconds: 5 },
      'notifications-inbox-bulk': { ...bulkInbox, visibilityTimeoutSeconds: 5 },
    },
  },
  // A provider limit of 100 emails/s spreads the burst over at least 2 s.
  env: { EMAIL_RATE_MAX: '100', EMAIL_RATE_DURATION_MS: '1000' },
});
describe('a worker killed mid-burst', () => {
  it('delivers every email after a restart; duplicates only from the accept → log-write window', async () => {
    const events = Array.from({ length: BURST }, () => candidateRegistered(randomUUID()));
    const keys = events.map((e) => idempotencyKey('welcome-email', e.data.candidateId));

    let worker = await spawnWorkerProcess(h);
    await h.publishAll(events);
    await waitFor(() => h.smtp.emails.length >= 60, { timeoutMs: 60_000, intervalMs: 2 });
    worker.child.kill('SIGKILL');
    expect(await worker.exit).toBe('SIGKILL');
    // Whatever the dead process had on the wire is read (or dropped) before looking.
    await waitFor(() => h.smtp.busy === 0, { timeoutMs: 10_000, message: 'SMTP clients gone' });
    // The emails carry the digest of their key; map it back.
    const keyOf = new Map(keys.map((k) => [keyDigest(k), k]));
    const acceptedAtKill = new Set(h.smtp.emails.map((e) => keyOf.get(e.key!)));
    const loggedAtKill = new Set(
      (await h.notifications(keys)).filter((r) => r.status === 'sent').map((r) => r.key),
    );
    const inWindow = [...acceptedAtKill].filter((k) => k !== undefined && !loggedAtKill.has(k));
    expect(acceptedAtKill.size).toBeLessThan(BURST);

    worker = await spawnWorkerProcess(h);
    // Tasks the dead process held come back once BullMQ's lock (30 s) runs out.
    const rows = await waitForSent(h, keys, 120_000);
    await waitFor(
      async () => {
        const c = await h.emails.tasks.queue.getJobCounts('completed', 'failed', 'active', 'wait', 'delayed');
        return c.completed === BURST && c.failed === 0 && !c.active && !c.wait && !c.delayed;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'email queue drained' },
    );

    const copies = new Map<string, number>();
    for (const email of h.smtp.emails) {
      const key = keyOf.get(email.key!)!;
      copies.set(key, (copies.get(key) ?? 0) + 1);
    }
    const lost = keys.filter((k) => !copies.has(k));
    const duplicated = keys.filter((k) => (copies.get(k) ?? 0) > 1);
    expect(lost).toEqual([]);
    expect(h.smtp.emails).toHaveLength(BURST + duplicated.reduce((n, k) => n + copies.get(k)! - 1, 0));
    expect(duplicated.filter((k) => !inWindow.includes(k))).toEqual([]);

    // The logged send is a key's last accept (server clock) → its sent_at (database clock, same machine).
    const lastAccept = new Map(h.smtp.emails.map((e) => [keyOf.get(e.key!)!, e.acceptedAt]));
    const widths = rows.map((r) => new Date(r.sent_at!).getTime() - lastAccept.get(r.key)!);
    console.info(
      `crash test: ${BURST} emails, killed after ${acceptedAtKill.size} accepted; lost 0; ` +
        `duplicates ${duplicated.length} (accepted but not logged at the kill: ${inWindow.length}); ` +
        `accept → log write p50 ${percentile(widths, 50).toFixed(1)} ms, p99 ${percentile(widths, 99).toFixed(1)} ms`,
    );

    worker.child.kill('SIGTERM');
    expect(await worker.exit).toBe(0);
  }, 180_000);
});
