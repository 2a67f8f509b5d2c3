import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import { describe, expect, it } from 'vitest';
import { useNotificationsHarness, waitForSent } from './harness.ts';

const h = useNotificationsHarness('notif-webhook-disabled');

describe('webhook.endpoint.disabled.v1', () => {
  it("sends the tenant's contact one email, however often the event arrives", async () => {
    const endpointId = randomUUID();
    const disabledAt = new Date().toISOString();
    const event = createEvent(
      'webhook.endpoint.disabled.v1',
      {
        endpointId,
        tenantId: randomUUID(),
        contactEmail: 'ops@tenant.example.test',
        host: 'ats.example.com',
        reason: 'the endpoint answered 410 Gone',
        disabledAt,
      },
      { source: 'hireflow/jobs', subject: endpointId },
    );
    await h.publish(event);
    await h.publish(event);
    const key = idempotencyKey('webhook-disabled', endpointId, disabledAt);
    await waitForSent(h, [key]);
    await h.spy.waitForHandled(event.id);
    const caught = h.smtp.byKey(key);
    expect(caught).toHaveLength(1);
    expect(caught[0]!.envelopeTo).toEqual(['ops@tenant.example.test']);
    expect(caught[0]!.parsed!.subject).toBe('Your Hireflow webhook endpoint at ats.example.com is disabled');
    expect(caught[0]!.parsed!.text).toContain('the endpoint answered 410 Gone');
    expect(caught[0]!.parsed!.text).toContain(endpointId);
  });
});
