// The queues' redrive bound (maxReceiveCount, libs/contracts' topology) and
// the consumer's fairness hides (fair-intake.ts) share one count: every hide
// is a receive. The bound keeps ten receives for workers that die holding a
// message, whatever the hides spent (docs/fairness.md, "Inside one SQS queue").
import { DEFAULT_MAX_RECEIVE_COUNT, topology } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_HIDES, FairIntake } from './fair-intake.ts';

/** Deliveries with no verdict (a worker killed or paused holding the message) a message survives. */
const CRASH_BUDGET = 10;

/** How many of a message's receives 1 … maxReceiveCount the intake hides, its tenant over its share each time. */
function hidesOverReceives(maxReceiveCount: number): number {
  const intake = new FairIntake<string>(1, { hold: 1, minHideMs: 0 });
  // Tenant A's share of a hand of 1 slot + 1 held is 2: both taken, its next message is surplus.
  intake.place('a0', 'A', 1, 0, 50);
  intake.place('a1', 'A', 1, 0, 50);
  let hides = 0;
  for (let receive = 1; receive <= maxReceiveCount; receive++) {
    const placed = intake.place('a2', 'A', receive, 0, 50);
    if (!placed.hold) hides += 1;
    else break; // held: it runs in its turn, no more hides
  }
  return hides;
}

describe('the receive budget', () => {
  it('is 12: ten crashes plus the two fairness hides', () => {
    expect(DEFAULT_MAX_HIDES).toBe(2);
    expect(DEFAULT_MAX_RECEIVE_COUNT).toBe(CRASH_BUDGET + DEFAULT_MAX_HIDES);
  });

  it('leaves every queue of the topology ten receives for dying workers after the hides', () => {
    const hides = hidesOverReceives(DEFAULT_MAX_RECEIVE_COUNT);
    expect(hides).toBe(DEFAULT_MAX_HIDES);
    for (const [name, def] of Object.entries(topology.queues)) {
      expect(def.maxReceiveCount - hides, name).toBeGreaterThanOrEqual(CRASH_BUDGET);
    }
  });
});
