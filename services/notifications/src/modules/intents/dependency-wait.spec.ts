import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { dependencyWaitMs } from './consumers.ts';

// A match email's event that reaches notifications before its candidate's or
// posting's (a race lost to an event in flight beside it, under load) waits
// for it by deferral. With the defaults, that first wait is one SQS delay
// second: in an e2e run of issue 29 it was 2.5–5 s (the old 5 s base), and a
// small tenant's match emails went out 4.3 s after its posting was matched.
describe('how long an event waits for what it needs', () => {
  const config = loadConfig({});
  const wait = { baseMs: config.DEPENDENCY_WAIT_BASE_MS, capMs: config.DEPENDENCY_WAIT_CAP_MS };

  it('waits at most one SQS delay second the first time, with the defaults', () => {
    for (const draw of [0, 0.5, 1]) {
      const ms = dependencyWaitMs(0, wait, () => draw);
      expect(ms).toBeGreaterThanOrEqual(500);
      // deferMessage rounds up to whole seconds: 1 s.
      expect(Math.ceil(ms / 1000)).toBe(1);
    }
  });

  it('doubles the bound each time, half of it fixed, up to the cap', () => {
    expect([0, 1, 2, 3].map((n) => dependencyWaitMs(n, wait, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([0, 1, 2, 3].map((n) => dependencyWaitMs(n, wait, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(dependencyWaitMs(40, wait, () => 1)).toBe(wait.capMs);
    expect(dependencyWaitMs(40, wait, () => 0)).toBe(wait.capMs / 2);
  });
});
