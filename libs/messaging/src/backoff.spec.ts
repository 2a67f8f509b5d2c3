import { describe, expect, it } from 'vitest';
import { backoffBound, fullJitter } from './backoff.ts';

describe('full-jitter backoff', () => {
  const options = { base: 5, cap: 900 };

  it('has a bound that doubles per attempt up to the cap', () => {
    expect([0, 1, 2, 3, 10, 20].map((a) => backoffBound(a, options))).toEqual([5, 10, 20, 40, 900, 900]);
  });

  it('draws every delay uniformly in [0, bound]', () => {
    expect(fullJitter(3, options, () => 0)).toBe(0);
    expect(fullJitter(3, options, () => 0.999999)).toBe(40);
    expect(fullJitter(3, options, () => 0.5)).toBe(20);
    for (let attempt = 0; attempt < 12; attempt++) {
      for (let i = 0; i < 200; i++) {
        const delay = fullJitter(attempt, options);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(backoffBound(attempt, options));
        expect(Number.isInteger(delay)).toBe(true);
      }
    }
  });
});
