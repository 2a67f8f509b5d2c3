import { describe, expect, it } from 'vitest';
import { FairIntake, FifoIntake } from './fair-intake.ts';

const NOW = 1_000_000;

describe('FairIntake', () => {
  it('holds a lone tenant up to the whole hand, then hides its flood paced at its handler rate', () => {
    const intake = new FairIntake<string>(4, { hold: 4, minHideMs: 0 });
    const placed = Array.from({ length: 12 }, (_, i) => intake.place(`a${i}`, 'A', 1, NOW, 20));
    expect(placed.slice(0, 8).every((p) => p.hold)).toBe(true);
    const hides = placed.slice(8).map((p) => (p.hold ? -1 : p.hideMs));
    // 8 in hand: the first hidden is due after those 8 and itself, at 20 ms / 4 slots each.
    expect(hides).toEqual([45, 50, 55, 60]);
    expect(intake.hidden).toBe(4);
    expect(intake.receiveLimit).toBe(4 + 4 + 30);
  });

  it('holds about a second of work by default: twice the slots, at least 100', () => {
    expect(new FairIntake<string>(4).receiveLimit).toBe(4 + 100);
    expect(new FairIntake<string>(80).receiveLimit).toBe(80 + 160);
  });

  it('starts the tenant with the fewest running first, each tenant in the order received', () => {
    const intake = new FairIntake<string>(3, { hold: 10 });
    for (let i = 0; i < 5; i += 1) intake.place(`a${i}`, 'A', 1, NOW, 10);
    intake.place('b0', 'B', 1, NOW, 10);
    intake.place('b1', 'B', 1, NOW, 10);
    const started = [intake.next(), intake.next(), intake.next(), intake.next()].map((n) => n?.item);
    // A first (first come, tied at 0), then B (0 running), then A again (A 1, B 1: A waited longer).
    expect(started).toEqual(['a0', 'b0', 'a1', undefined]);
    intake.done('B');
    expect(intake.next()?.item).toBe('b1');
    intake.done('A');
    expect(intake.next()?.item).toBe('a2');
  });

  it("hides a flood's surplus once another tenant is in hand, and holds the newcomer", () => {
    const intake = new FairIntake<string>(2, { hold: 4, minHideMs: 0 });
    for (let i = 0; i < 4; i += 1) expect(intake.place(`a${i}`, 'A', 1, NOW, 10).hold).toBe(true);
    expect(intake.place('b0', 'B', 1, NOW, 10).hold).toBe(true);
    // A holds 4, its share is now 4 / 2 = 2: its next message is hidden.
    expect(intake.place('a4', 'A', 1, NOW, 10).hold).toBe(false);
    expect(intake.next()?.item).toBe('a0');
    expect(intake.next()?.item).toBe('b0');
  });

  it('never hides a message more than maxHides times: then it is held whatever the share', () => {
    const intake = new FairIntake<string>(1, { hold: 1, maxHides: 2, minHideMs: 0 });
    intake.place('a0', 'A', 1, NOW, 10);
    intake.place('a1', 'A', 1, NOW, 10);
    expect(intake.place('a2', 'A', 2, NOW, 10).hold).toBe(false);
    expect(intake.place('a3', 'A', 3, NOW, 10).hold).toBe(true);
    expect(intake.held).toBe(3);
    expect(intake.receiveLimit).toBe(1 + 1 + 30);
  });

  it('holds a message whose turn comes before the shortest hide ends, and caps hides at the longest', () => {
    const intake = new FairIntake<string>(1, { hold: 1, minHideMs: 1000, maxHideMs: 5000 });
    intake.place('a0', 'A', 1, NOW, 10);
    intake.place('a1', 'A', 1, NOW, 10);
    expect(intake.place('a2', 'A', 1, NOW, 10)).toEqual({ hold: true });
    expect(intake.place('a3', 'A', 1, NOW, 100_000)).toEqual({ hold: false, hideMs: 5000 });
  });

  it('keeps pacing a tenant whose hidden messages are still due back, and forgets it after', () => {
    const intake = new FairIntake<string>(1, { hold: 1, minHideMs: 0, maxHideMs: 60_000 });
    intake.place('a0', 'A', 1, NOW, 100);
    intake.place('a1', 'A', 1, NOW, 100);
    const first = intake.place('a2', 'A', 1, NOW, 100);
    intake.next();
    intake.done('A');
    // a0 ran; a2 is due back later: A is still known, its next hide comes after a2's.
    expect(intake.place('a3', 'A', 1, NOW, 100).hold).toBe(true);
    const later = intake.place('a4', 'A', 1, NOW, 100);
    expect(!later.hold && !first.hold && later.hideMs > first.hideMs).toBe(true);
    // Back early from its hide, a message waits for those in hand only, not after the flood.
    const back = intake.place('a2', 'A', 2, NOW, 100);
    expect(!back.hold && !later.hold && back.hideMs < later.hideMs).toBe(true);
    expect(intake.tenants).toBe(1);
    intake.drain();
    intake.place('b0', 'B', 1, NOW + 120_000, 100);
    expect(intake.tenants).toBe(1);
  });

  it('gives back every held message on drain', () => {
    const intake = new FairIntake<string>(1, { hold: 5 });
    for (const item of ['a0', 'a1', 'b0']) intake.place(item, item[0]!, 1, NOW, 10);
    intake.next();
    expect(intake.drain().sort()).toEqual(['a1', 'b0']);
    expect(intake.held).toBe(0);
    expect(intake.next()).toBeUndefined();
  });
});

describe('FifoIntake (fairness off)', () => {
  it('holds every message, starts them in the order received up to the concurrency, hides none', () => {
    const intake = new FifoIntake<string>(2);
    expect(intake.receiveLimit).toBe(2);
    expect(intake.lookingAhead).toBe(false);
    for (const item of ['a0', 'b0', 'a1']) expect(intake.place(item)).toEqual({ hold: true });
    expect([intake.next()?.item, intake.next()?.item, intake.next()]).toEqual(['a0', 'b0', undefined]);
    intake.done();
    expect(intake.next()?.item).toBe('a1');
    intake.place('a2');
    expect(intake.drain()).toEqual(['a2']);
    expect(intake.hidden).toBe(0);
  });
});
