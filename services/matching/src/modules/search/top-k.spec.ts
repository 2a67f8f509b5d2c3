import { describe, expect, it } from 'vitest';
import { seededRandom } from './random.fixture.ts';
import { compareHits, type RankedHit, TopK } from './top-k.ts';

describe('TopK', () => {
  it('keeps the best `limit` hits of a stream, best first, ties by id', () => {
    const random = seededRandom(11);
    for (const limit of [1, 3, 50]) {
      const top = new TopK<RankedHit>(limit);
      // scores from a small set, so ties are common
      const hits = Array.from({ length: 500 }, (_, i) => ({
        id: `h${String(i).padStart(3, '0')}`,
        score: Math.floor(random() * 20) / 20,
        cosine: 0,
        overlap: null,
      }));
      for (const hit of hits) top.offer(hit);
      expect(top.sorted()).toEqual([...hits].sort(compareHits).slice(0, limit));
    }
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new TopK(0)).toThrow(RangeError);
    expect(() => new TopK(2.5)).toThrow(RangeError);
  });
});
