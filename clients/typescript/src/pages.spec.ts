import { describe, expect, it } from 'vitest';
import { allItems, type Page } from './pages.ts';

describe('allItems', () => {
  const pages: Record<string, Page<number>> = {
    first: { items: [1, 2], nextCursor: 'b' },
    b: { items: [3], nextCursor: 'c' },
    c: { items: [4], nextCursor: null },
  };

  it('walks every page through nextCursor', async () => {
    const cursors: (string | undefined)[] = [];
    const items: number[] = [];
    for await (const item of allItems(async (cursor) => {
      cursors.push(cursor);
      return pages[cursor ?? 'first']!;
    }))
      items.push(item);
    expect(items).toEqual([1, 2, 3, 4]);
    expect(cursors).toEqual([undefined, 'b', 'c']);
  });

  it('fetches no page beyond what is used', async () => {
    let fetched = 0;
    for await (const item of allItems(async (cursor) => {
      fetched++;
      return pages[cursor ?? 'first']!;
    })) {
      if (item === 2) break;
    }
    expect(fetched).toBe(1);
  });
});
