import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { idempotencyKey } from '@hireflow/idempotency';
import { describe, expect, it } from 'vitest';
import { candidateRegistered, spawnWorkerProcess, useNotificationsHarness } from './harness.ts';

// A graceful stop (SIGTERM) while the SMTP server takes its time to answer:
// the worker waits for the send (bounded by SMTP_TIMEOUT_MS), records it,
// then closes the database. Stopping first would leave the email unrecorded
// and the task to be sent again by the next worker.

const SMTP_DELAY_MS = 4000;
const h = useNotificationsHarness('notif-shutdown', {
  worker: false,
  env: { SMTP_TIMEOUT_MS: '5000', SHUTDOWN_TIMEOUT_MS: '15000' },
});

describe('SIGTERM during a slow SMTP send', () => {
  it('waits for the send, records it, exits 0, and leaves nothing to send again', async () => {
    const worker = await spawnWorkerProcess(h);
    let arrived!: () => void;
    const receiving = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // A provider slow to say 250: slower than the old close budget, within SMTP_TIMEOUT_MS.
    h.smtp.beforeAccept = async () => {
      arrived();
      await delay(SMTP_DELAY_MS);
    };
    const event = candidateRegistered(randomUUID());
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    await h.publish(event);
    await receiving;
    worker.child.kill('SIGTERM');
    expect(await worker.exit).toBe(0);

    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect((await h.notification(key))?.status).toBe('sent');
    // Completed: no worker will ever run this task again.
    expect(await h.taskState(key)).toBe('completed');
  }, 60_000);
});
