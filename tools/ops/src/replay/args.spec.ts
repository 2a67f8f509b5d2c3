import { describe, expect, it } from 'vitest';
import { parseReplayArgs } from './args.ts';

describe('parseReplayArgs', () => {
  it('reads every option', () => {
    expect(
      parseReplayArgs([
        '--to',
        'media-inbox',
        '--types',
        'apikey.issued.v1, apikey.revoked.v1',
        '--since',
        '2026-11-01',
        '--until=2026-11-02T12:00:00+01:00',
        '--dry-run',
        '--rate',
        '0',
        '--checkpoint',
        '/tmp/x.json',
        '--fresh',
      ]),
    ).toEqual({
      queue: 'media-inbox',
      types: ['apikey.issued.v1', 'apikey.revoked.v1'],
      since: new Date('2026-11-01T00:00:00Z'),
      until: new Date('2026-11-02T11:00:00Z'),
      dryRun: true,
      rate: 0,
      checkpoint: '/tmp/x.json',
      fresh: true,
      help: false,
    });
  });

  it('defaults: every type, no bounds, 500 events/s, a real run', () => {
    expect(parseReplayArgs(['--to', 'notifications-inbox'])).toMatchObject({
      types: [],
      since: undefined,
      until: undefined,
      dryRun: false,
      rate: 500,
      fresh: false,
    });
  });

  it('says what is wrong with a bad command line', () => {
    expect(() => parseReplayArgs([])).toThrow('--to <queue> is required');
    expect(() => parseReplayArgs(['--to', 'q', '--since', 'yesterday'])).toThrow(
      '--since must be an ISO 8601 date or date-time with an offset',
    );
    expect(() => parseReplayArgs(['--to', 'q', '--rate', 'fast'])).toThrow('--rate must be a whole number');
    expect(() => parseReplayArgs(['--to', 'q', '--since', '2026-11-02', '--until', '2026-11-01'])).toThrow(
      '--since must be before --until',
    );
    expect(() => parseReplayArgs(['--to', 'q', '--colour', 'blue'])).toThrow(/colour/);
    expect(() => parseReplayArgs(['--to', 'q', 'extra'])).toThrow(/extra/);
  });
});
