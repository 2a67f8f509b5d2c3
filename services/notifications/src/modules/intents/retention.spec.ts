import { describe, expect, it } from 'vitest';
import { intentKeepUntil, POSTING_HORIZON_MS, REDELIVERY_HORIZON_MS } from './retention.ts';

const DAY = 24 * 3_600_000;
const recordedAt = new Date('2026-11-30T00:00:00Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('intentKeepUntil', () => {
  it("keeps a posting's summary until the posting's last job.matched.v1 can arrive (posted + 365 + 15 days)", () => {
    const postedAt = new Date('2026-11-01T00:00:00Z');
    expect(at(intentKeepUntil('job-matched', { recordedAt, postedAt, replayHorizonMs: 0 }).getTime())).toBe(
      '2027-11-16T00:00:00.000Z',
    );
    expect(POSTING_HORIZON_MS).toBe(380 * DAY);
  });

  it('keeps one-event intents through their redelivery window (15 days)', () => {
    for (const template of ['welcome', 'match'] as const) {
      expect(intentKeepUntil(template, { recordedAt, replayHorizonMs: 0 }).getTime()).toBe(
        recordedAt.getTime() + REDELIVERY_HORIZON_MS,
      );
    }
  });

  it('keeps every intent at least as long as a replay can bring its event back', () => {
    const replayHorizonMs = 400 * DAY;
    const postedAt = new Date('2026-01-01T00:00:00Z');
    for (const template of ['welcome', 'match', 'job-matched'] as const) {
      expect(intentKeepUntil(template, { recordedAt, postedAt, replayHorizonMs }).getTime()).toBe(
        recordedAt.getTime() + replayHorizonMs,
      );
    }
  });
});
