import { describe, expect, it } from 'vitest';
import { jobIdFor } from './job-id.ts';

describe('jobIdFor', () => {
  it('is stable and readable, with no ":" (BullMQ refuses custom ids with colons)', () => {
    const id = jobIdFor('welcome-email:3f0c');
    expect(id).toBe(jobIdFor('welcome-email:3f0c'));
    expect(id).toMatch(/^welcome-email_3f0c\.[A-Za-z0-9_-]{12}$/);
  });

  it('keeps keys apart that only differ in what the readable part replaces', () => {
    expect(jobIdFor('a:b')).not.toBe(jobIdFor('a_b'));
    expect(jobIdFor('a:b').split('.')[0]).toBe(jobIdFor('a_b').split('.')[0]);
  });

  it('bounds the length of long keys and refuses an empty one', () => {
    expect(jobIdFor('k'.repeat(1000)).length).toBeLessThanOrEqual(113);
    expect(() => jobIdFor('')).toThrow(/empty/);
  });
});
