import { describe, expect, it } from 'vitest';
import { interactiveReserve, SharedSlots } from './slots.ts';

describe('SharedSlots', () => {
  it('counts slots of all consumers together, leaving the reserve to the others', () => {
    const slots = new SharedSlots(4);
    slots.take();
    slots.take();
    expect(slots.available()).toBe(2);
    expect(slots.available(1)).toBe(1);
    slots.take();
    expect(slots.available(1)).toBe(0);
    expect(slots.available()).toBe(1);
  });

  it('offers a freed slot to the consumers in the order they subscribed', () => {
    const slots = new SharedSlots(1);
    const offered: string[] = [];
    slots.subscribe(() => {
      offered.push('interactive');
      if (slots.available() > 0) slots.take();
    });
    slots.subscribe(() => offered.push(slots.available() > 0 ? 'bulk took it' : 'bulk found none'));
    slots.take();
    slots.give();
    expect(offered).toEqual(['interactive', 'bulk found none']);
    expect(slots.used).toBe(1);
  });

  it('reserves a tenth for the interactive lane, at least one, never every slot', () => {
    expect([1, 2, 4, 10, 25, 100].map(interactiveReserve)).toEqual([0, 1, 1, 1, 2, 10]);
  });
});
