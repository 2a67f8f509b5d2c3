import { describe, expect, it } from 'vitest';
import { taskIdFor } from './task-id.ts';

describe('taskIdFor', () => {
  it('is stable and readable, with no ":" (BullMQ refuses custom ids with colons)', () => {
    const id = taskIdFor('welcome-email:3f0c');
    expect(id).toBe(taskIdFor('welcome-email:3f0c'));
    expect(id).toMatch(/^welcome-email_3f0c\.[A-Za-z0-9_-]{12}$/);
  });

  it('keeps keys apart that only differ in what the readable part replaces', () => {
    expect(taskIdFor('a:b')).not.toBe(taskIdFor('a_b'));
    expect(taskIdFor('a:b').split('.')[0]).toBe(taskIdFor('a_b').split('.')[0]);
  });

  it('bounds the length of long keys and refuses an empty one', () => {
    expect(taskIdFor('k'.repeat(1000)).length).toBeLessThanOrEqual(113);
    expect(() => taskIdFor('')).toThrow(/empty/);
  });
});
