import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeConfig } from './describe.ts';
import { ConfigError, parseConfig } from './parse.ts';
import { port, positiveInt, redisUrl } from './variables.ts';

const schema = z.object({
  PORT: port(3000),
  REDIS_URL: redisUrl(),
  BATCH: positiveInt('Items per batch.', 10, 100),
  NAME: z.string().describe('A required name.'),
});

describe('parseConfig', () => {
  it('applies defaults and coerces numbers; an empty variable counts as unset', () => {
    expect(parseConfig(schema, { NAME: 'x', PORT: '', BATCH: '7' })).toEqual({
      NAME: 'x',
      PORT: 3000,
      REDIS_URL: 'redis://127.0.0.1:6379',
      BATCH: 7,
    });
  });

  it('ignores variables the schema does not name', () => {
    expect(parseConfig(schema, { NAME: 'x', HOME: '/root' })).not.toHaveProperty('HOME');
  });

  it('names every bad variable at once, with a message for each', () => {
    try {
      parseConfig(schema, { PORT: '70000', REDIS_URL: 'http://x', BATCH: '0' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const issues = (error as ConfigError).issues;
      expect(Object.fromEntries(issues.map((i) => [i.variable, i.message]))).toEqual({
        PORT: 'must be between 0 and 65535',
        REDIS_URL: 'must be a URL with scheme redis: or rediss: (e.g. redis://127.0.0.1:6379)',
        BATCH: 'must be at least 1',
        NAME: 'is required',
      });
      expect((error as Error).message).toContain('  - PORT: must be between 0 and 65535');
    }
  });
});

describe('describeConfig', () => {
  it('lists each variable with its description, default and whether it is required', () => {
    expect(describeConfig(schema)).toEqual([
      { name: 'PORT', description: 'HTTP port (0 picks a free one).', default: '3000', required: false },
      {
        name: 'REDIS_URL',
        description: 'Redis for BullMQ queues, rate limits and pub/sub.',
        default: 'redis://127.0.0.1:6379',
        required: false,
      },
      { name: 'BATCH', description: 'Items per batch.', default: '10', required: false },
      { name: 'NAME', description: 'A required name.', default: undefined, required: true },
    ]);
  });
});
