import { eventLogRetentionDays, headroom, positiveInt, tenantConcurrency } from '@hireflow/config';
import { parseServiceConfig, serviceConfigSchema } from '@hireflow/runtime';
import { z } from 'zod';
import { COSINE_WEIGHT, MATCH_LIMIT, MATCH_THRESHOLD } from './modules/scoring/score.ts';

const MINUTE = 60_000;

const fraction = (what: string, fallback: number, range: { min: number; minExclusive?: boolean }) =>
  z.coerce
    .number({ message: 'must be a number' })
    .refine((v) => (range.minExclusive ? v > range.min : v >= range.min) && v <= 1, {
      message: `must be ${range.minExclusive ? 'above' : 'at least'} ${range.min} and at most 1`,
    })
    .default(fallback)
    .describe(what);

/** Every variable the matching service reads, described; parsed once at start. */
export const configSchema = serviceConfigSchema('matching').extend({
  MATCH_THRESHOLD: fraction(
    'A candidate matches a posting when its score (0 to 1) is at least this.',
    MATCH_THRESHOLD,
    {
      min: 0,
    },
  ),
  MATCH_LIMIT: positiveInt(
    "Most candidates a posting's first computation keeps (the best above the threshold); candidates registered later join every open posting they fit.",
    MATCH_LIMIT,
    10_000,
  ),
  MATCH_COSINE_WEIGHT: fraction(
    'Weight of the text similarity in the score; the skills overlap gets the rest (docs/matching.md).',
    COSINE_WEIGHT,
    { min: 0, minExclusive: true },
  ),
  EVENT_LOG_RETENTION_DAYS: eventLogRetentionDays(),
  MATCH_CONCURRENCY: positiveInt(
    'Match computations one worker process runs at once (computations of one tenant always run one at a time).',
    4,
    64,
  ),
  MATCH_TENANT_CONCURRENCY: tenantConcurrency('Computations of one tenant running at once'),
  MATCH_HEADROOM: headroom('Match computations'),
  MATCH_ATTEMPTS: positiveInt('Attempts of a match computation before it is kept as a dead letter.', 8, 100),
  MATCH_TENANT_IDLE_MS: positiveInt(
    "A worker frees a tenant's in-memory vectors after this long without a computation (reloaded from Postgres on next use).",
    15 * MINUTE,
    7 * 24 * 60 * MINUTE,
  ),
  MATCH_SWEEP_INTERVAL_MS: positiveInt(
    'How often a worker looks for postings and candidates whose computation never ran (its job lost).',
    5 * MINUTE,
    24 * 60 * MINUTE,
  ),
  MATCH_SWEEP_AFTER_MS: positiveInt(
    'A posting or candidate still uncomputed this long after it arrived has its computation added again.',
    15 * MINUTE,
    24 * 60 * MINUTE,
  ),
  INBOX_CONCURRENCY: positiveInt('Inbox events handled at once by one worker process.', 10, 100),
});

export type Config = z.output<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseServiceConfig(configSchema, env);
}
