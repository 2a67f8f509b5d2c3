import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { notificationsService } from '@hireflow/notifications/service';
import { connectDeps, createLogger, type ServiceDeps } from '@hireflow/runtime';
import { startTcpProxy, type TcpProxy, waitFor } from '@hireflow/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createMailer, type Mailer } from '../src/modules/email/mailer.ts';
import { emailProcessor } from '../src/modules/email/processor.ts';
import { recordIntent } from '../src/modules/intents/store.ts';
import { useNotificationsHarness } from './harness.ts';

// The chaos soak's same-Message-ID copies after a Redis wipe (seed 11): a
// worker's SMTP send is accepted just as Postgres goes away (a long cut, a
// failover), so it can neither record the send nor renew its 15 s claim; it
// keeps trying to record. Redis loses everything meanwhile, the task and its
// BullMQ lock with it, and the task is added again (the sweep, or a
// redelivered event). The new run takes the expired claim over the moment
// Postgres answers it, before the first holder's next record attempt lands,
// and sent the email a second time. It now waits for that record first.

const LEASE_MS = 1500;
const h = useNotificationsHarness('notif-takeover', { worker: false });

describe('a claim taken over from a holder that could not record its send', () => {
  let proxy: TcpProxy | undefined;
  let cutOff: ServiceDeps | undefined;
  let mailer: Mailer | undefined;
  afterAll(async () => {
    proxy?.restore();
    mailer?.close();
    await cutOff?.close();
    await proxy?.close();
  });

  it('waits for the first holder to record the send instead of sending again', async () => {
    proxy = await startTcpProxy({ port: Number(new URL(h.db.url).port) });
    const through = new URL(h.db.url);
    through.port = String(proxy.port);
    // The first holder's worker reaches Postgres through the proxy; the second's directly.
    const config = notificationsService.loadConfig({ ...h.env, DATABASE_URL: through.toString() });
    cutOff = await connectDeps(config, {
      service: 'notifications',
      migrations: notificationsService.migrations,
      env: {},
      log: createLogger('notifications', 'silent'),
    });
    mailer = createMailer({ url: h.smtp.url, from: 'test@hireflow.local', poolSize: 2, timeoutMs: 5000 });
    const common = {
      mailer,
      leaseMs: LEASE_MS,
      recordRetryMs: 60_000,
      unsubscribeUrl: () => 'http://127.0.0.1/v1/unsubscribe?token=t',
      confirmUrl: () => 'http://127.0.0.1/v1/contacts/confirm?token=t',
      log: createLogger('notifications', 'silent'),
    };

    const candidateId = randomUUID();
    const key = idempotencyKey('welcome-email', candidateId);
    await recordIntent(h.deps.orm.em.fork(), {
      key,
      tenantId: randomUUID(),
      eventId: randomUUID(),
      recipient: `c-${candidateId.slice(0, 8)}@example.test`,
      template: 'welcome',
      params: { name: 'Ada' },
      keepUntil: new Date(Date.now() + 86_400_000),
    });
    const task = (attempt: number) =>
      ({ data: { key }, attemptsMade: attempt, opts: { attempts: 5 } }) as Parameters<
        ReturnType<typeof emailProcessor>
      >[0];

    // The first holder: Postgres goes away as the SMTP server accepts its email.
    let accepts = 0;
    h.smtp.beforeAccept = () => {
      if (accepts++ === 0) proxy!.cut();
    };
    const first = emailProcessor({ ...common, orm: cutOff.orm })(task(0)).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await waitFor(() => h.smtp.byKey(key).length === 1, { timeoutMs: 20_000 });
    // Its claim runs out while it cannot renew it.
    await waitFor(
      async () => {
        const [row] = await h.deps.orm.em
          .fork()
          .execute<{ expired: boolean }[]>(
            'SELECT send_lease_until <= clock_timestamp() AS expired FROM notification_log WHERE key = ?',
            [key],
          );
        return row?.expired === true;
      },
      { timeoutMs: 20_000 },
    );

    // The task, added again after Redis lost it, runs on a worker that reaches Postgres.
    // The first holder's database comes back once the new run has taken the claim over.
    let tookOver = 0;
    const second = await emailProcessor({
      ...common,
      orm: h.deps.orm,
      onTakeover: () => {
        tookOver++;
        proxy!.restore();
      },
    })(task(0));
    proxy.restore();

    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect(tookOver).toBe(1);
    const row = await h.notification(key);
    expect(row?.status).toBe('sent');
    expect(second.messageId).toBe(row?.message_id);
    // The first holder recorded its send, then learnt its claim had been taken over.
    const outcome = await first;
    expect('error' in outcome ? (outcome.error as { code?: string }).code : 'resolved').toBe(
      'IDEMPOTENCY_LEASE_LOST',
    );
  }, 90_000);
});
