import { describe, expect, it } from 'vitest';
import { releaseStartMemory } from './start-memory.ts';

describe('releaseStartMemory', () => {
  it('gives back the heap that garbage grew, and exposes no gc to the process', () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc;
    // A start's garbage: many short-lived objects, enough to grow the heap.
    let garbage: { i: number; s: string }[] = [];
    for (let i = 0; i < 300_000; i++) garbage.push({ i, s: `item ${i}` });
    garbage = [];
    const before = process.memoryUsage().heapTotal;
    releaseStartMemory();
    expect(garbage).toEqual([]);
    expect(process.memoryUsage().heapTotal).toBeLessThan(before);
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe(hadGc);
  });
});
