import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.ts';

describe('parseArgs', () => {
  it('takes a name, --events as a list and --dir, in either spelling', () => {
    expect(parseArgs(['analytics', '--events', 'job.posted.v1, candidate.registered.v1'])).toEqual({
      name: 'analytics',
      events: ['job.posted.v1', 'candidate.registered.v1'],
    });
    expect(parseArgs(['--events=job.closed.v1', 'crm', '--dir=services/crm-sync'])).toEqual({
      name: 'crm',
      events: ['job.closed.v1'],
      dir: 'services/crm-sync',
    });
  });

  it('names each missing or unknown argument', () => {
    expect(parseArgs([])).toEqual({
      problems: [
        'name: give exactly one subscriber name',
        'events: --events needs one or more event types, comma-separated',
      ],
    });
    expect(parseArgs(['a', 'b', '--events', 'x', '--force'])).toEqual({
      problems: ['--force: unknown option', 'name: give exactly one subscriber name'],
    });
  });
});
