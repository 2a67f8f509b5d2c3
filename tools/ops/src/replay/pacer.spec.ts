import { describe, expect, it } from 'vitest';
import { type Clock, Pacer } from './pacer.ts';

function fakeClock(): Clock & { t: number; slept: number[] } {
  const clock = {
    t: 0,
    slept: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

describe('Pacer', () => {
  it('spaces batches so that events leave at the rate', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(100, clock);
    for (let i = 0; i < 5; i++) await pacer.take(10);
    // The first batch goes at once; each next one 10 events × 10 ms later.
    expect(clock.slept).toEqual([100, 100, 100, 100]);
    expect(clock.t).toBe(400);
  });

  it('does not burst to catch up after the sender fell behind', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(100, clock);
    await pacer.take(10);
    clock.t += 1000; // a slow send
    await pacer.take(10);
    await pacer.take(10);
    expect(clock.slept).toEqual([100]);
  });

  it('never waits at rate 0 (unlimited)', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(0, clock);
    for (let i = 0; i < 100; i++) await pacer.take(10);
    expect(clock.slept).toEqual([]);
  });
});
