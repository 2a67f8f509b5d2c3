import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { LANE_SPAN, taskIdFor } from '@hireflow/messaging';
import { describe, expect, it } from 'vitest';
import { candidateRegistered, sqsCall, useNotificationsHarness, waitForSent } from './harness.ts';

// Email tasks are taken round-robin by tenant, interactive before bulk
// (docs/fairness.md): a welcome email of a registration is interactive; one of
// an import (the event's `lane` extension) or of a replay (the message's
// `lane` attribute) is bulk.
const h = useNotificationsHarness('notif-lanes');

const welcome = (candidateId: string) => idempotencyKey('welcome-email', candidateId);

async function priorityOf(key: string): Promise<number> {
  const task = await h.emails.tasks.queue.getJob(taskIdFor(key));
  return task!.opts.priority!;
}

describe('email lanes', () => {
  it('puts a registration’s welcome email in the interactive lane and an import’s or a replay’s in the bulk lane', async () => {
    const alone = candidateRegistered(randomUUID());
    const imported = { ...candidateRegistered(randomUUID()), lane: 'bulk' as const };
    const replayed = candidateRegistered(randomUUID());
    await h.publish(alone);
    await h.publish(imported);
    // Where `pnpm replay --to notifications-inbox` sends: the bulk lane's queue beside it.
    await sqsCall('SendMessage', {
      QueueUrl: h.topology.queues['notifications-inbox-bulk']!.url,
      MessageBody: JSON.stringify(replayed),
      MessageAttributes: {
        type: { DataType: 'String', StringValue: replayed.type },
        lane: { DataType: 'String', StringValue: 'bulk' },
      },
    });
    const keys = [alone, imported, replayed].map((e) => welcome(e.data.candidateId));
    await waitForSent(h, keys);
    const [interactive, bulk, replay] = await Promise.all(keys.map(priorityOf));
    expect(interactive).toBeGreaterThanOrEqual(1);
    expect(interactive).toBeLessThan(LANE_SPAN);
    expect(bulk).toBeGreaterThan(LANE_SPAN);
    expect(replay).toBeGreaterThan(LANE_SPAN);
  });
});
