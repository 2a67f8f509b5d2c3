import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { startTcpProxy, type TcpProxy } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  candidateRegistered,
  type NotificationsHarness,
  startNotificationsHarness,
  waitForSent,
} from './harness.ts';

// Redis behind a proxy the test cuts: an inbox handler that must add an
// email task fails within a bound and lets its message come back, instead of
// hanging on a command ioredis would queue until Redis returns.
describe('a Redis outage during inbox handling', () => {
  let proxy: TcpProxy;
  let h: NotificationsHarness;
  beforeAll(async () => {
    proxy = await startTcpProxy({ port: 6379 });
    h = await startNotificationsHarness('notif-redis', {
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
    });
    await h.startWorker();
  });
  afterAll(async () => {
    proxy.restore();
    await h?.close();
    await proxy?.close();
  });

  it('fails the handler in bounded time, then sends the email once Redis is back', async () => {
    proxy.cut();
    const event = candidateRegistered(randomUUID());
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    await h.publish(event);
    const failed = await h.spy.waitForMessage({ eventId: event.id, outcome: 'failed' }, 20_000);
    expect(String(failed.error)).toMatch(/timed out after \d+ ms/);
    expect((await h.notification(key))?.status).toBe('queued');

    proxy.restore();
    await waitForSent(h, [key], 60_000);
    expect(h.smtp.byKey(key)).toHaveLength(1);
  }, 90_000);
});
