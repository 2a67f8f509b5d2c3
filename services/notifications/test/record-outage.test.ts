import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { HandlerSpy } from '@hireflow/messaging/testing';
import { notificationsService } from '@hireflow/notifications/service';
import { startWorker } from '@hireflow/notifications/worker';
import { type Closeable, connectDeps, createLogger, type ServiceDeps } from '@hireflow/runtime';
import { startTcpProxy, type TcpProxy, waitFor } from '@hireflow/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { candidateRegistered, useNotificationsHarness, waitForSent } from './harness.ts';

// Postgres goes away right after the SMTP server accepted an email (a
// failover takes 30–120 s): the worker keeps trying to record the send while
// it still holds the task, instead of giving up, letting the task retry, and
// sending the email a second time once its claim has expired.

const OUTAGE_MS = 8000;
const h = useNotificationsHarness('notif-pg-outage', { worker: false });

describe('Postgres lost right after the SMTP accept', () => {
  let proxy: TcpProxy | undefined;
  let deps: ServiceDeps | undefined;
  let worker: Closeable[] = [];
  afterAll(async () => {
    proxy?.restore();
    for (const part of worker) await part.close();
    await deps?.close();
    await proxy?.close();
  });

  it('records the send once the database is back, and sends the email once', async () => {
    proxy = await startTcpProxy({ port: Number(new URL(h.db.url).port) });
    const through = new URL(h.db.url);
    through.port = String(proxy.port);
    // The worker reaches Postgres through the proxy; the test reads it directly.
    const config = notificationsService.loadConfig({ ...h.env, DATABASE_URL: through.toString() });
    deps = await connectDeps(config, {
      service: 'notifications',
      migrations: notificationsService.migrations,
      env: {},
      log: createLogger('notifications', 'silent'),
    });
    const spy = new HandlerSpy();
    worker = await startWorker(config, deps, { onMessage: spy.observer });

    const event = candidateRegistered(randomUUID());
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    let accepts = 0;
    h.smtp.beforeAccept = () => {
      if (accepts++ > 0) return;
      proxy!.cut();
      // The outage lasts longer than any quick retry would wait.
      setTimeout(() => proxy!.restore(), OUTAGE_MS);
    };
    await h.publish(event);
    await spy.waitForHandled(event.id, 20_000);
    await waitForSent(h, [key], 90_000);
    await waitFor(async () => (await h.taskState(key)) === 'completed', { timeoutMs: 30_000 });

    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect(accepts).toBe(1);
  }, 120_000);
});
