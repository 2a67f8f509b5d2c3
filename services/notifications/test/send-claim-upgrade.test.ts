import { randomUUID } from 'node:crypto';
import { idempotent } from '@hireflow/idempotency';
import { describe, expect, it } from 'vitest';
import { claimSend } from '../src/modules/intents/store.ts';
import { queuedWelcome, useNotificationsHarness } from './harness.ts';

// A rolling deploy across migration 1008 runs old and new email workers side by
// side. The old one claims a send with the idempotency wrapper (an
// `in_progress` row of processed_message under the intent key); the new one on
// the log row. The new claim must treat the old one as a holder: a live one
// keeps the send, an expired one is taken over (with the grace for its record).

const h = useNotificationsHarness('notif-claim-upgrade', { worker: false });

const queued = (name: string) => queuedWelcome(h, name);

describe("the send claim beside the previous release's claim", () => {
  it('is not taken while an old worker holds the send', async () => {
    const key = await queued('live');
    const seen = await idempotent(h.deps.orm, { key, leaseMs: 60_000 }, () =>
      claimSend(h.deps.orm.em.fork(), key, randomUUID(), 15_000),
    );
    expect(seen?.claimed).toBe(false);
    expect(seen?.remainingMs).toBeGreaterThan(15_000);
  });

  it("is taken over, as from a holder that could not record, once the old worker's lease ran out", async () => {
    const key = await queued('expired');
    let claim: Awaited<ReturnType<typeof claimSend>>;
    await idempotent(h.deps.orm, { key, leaseMs: 60_000, heartbeat: false }, async (em) => {
      await em.execute(
        "UPDATE processed_message SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE key = ?",
        [key],
      );
      claim = await claimSend(h.deps.orm.em.fork(), key, randomUUID(), 15_000);
    }).catch(() => {
      // The old worker's run may learn that its lease went; what matters is the new claim.
    });
    expect(claim?.claimed).toBe(true);
    expect(claim?.takenOver).toBe(true);
  });

  it('is a plain claim where no old worker ever held the send', async () => {
    const key = await queued('fresh');
    const seen = await claimSend(h.deps.orm.em.fork(), key, randomUUID(), 15_000);
    expect(seen?.claimed).toBe(true);
    expect(seen?.takenOver).toBe(false);
  });
});
