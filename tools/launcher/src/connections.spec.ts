import { describe, expect, it } from 'vitest';
import { capWorkers } from './connections.ts';

const bounds = {
  jobs: { minWorkers: 1, maxWorkers: 4 },
  matching: { minWorkers: 1, maxWorkers: 6 },
  media: { minWorkers: 2, maxWorkers: 6 },
};

describe('capWorkers', () => {
  it('keeps the policy when the server holds every process at its maximum', () => {
    // 3 API processes + 16 workers = 19 processes × 4 connections = 76.
    expect(capWorkers(bounds, { max: 100, inUse: 10 })).toEqual({
      maxWorkers: { jobs: 4, matching: 6, media: 6 },
      capped: [],
    });
  });

  it('shares what the budget allows beyond the minimums, one worker at a time round the services', () => {
    // (60 − 2 − 10) ÷ 4 = 12 processes: 3 API + 4 minimum workers + 5 spare.
    expect(capWorkers(bounds, { max: 60, inUse: 2 })).toEqual({
      maxWorkers: { jobs: 3, matching: 3, media: 3 },
      capped: ['jobs', 'matching', 'media'],
    });
  });

  it('never goes below the minimums, even when they do not fit', () => {
    expect(capWorkers(bounds, { max: 20, inUse: 15 }).maxWorkers).toEqual({ jobs: 1, matching: 1, media: 2 });
  });
});
