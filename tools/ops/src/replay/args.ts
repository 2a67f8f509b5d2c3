import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ReplayInputError } from './plan.ts';
import { DEFAULT_REPLAY_RATE } from './replay.ts';

export const REPLAY_USAGE = `usage: pnpm replay --to <queue> [--types t1,t2] [--since T] [--until T] [--dry-run]
                   [--rate <events/s>] [--checkpoint <file>] [--fresh]

  --to <queue>         the one consumer to send to (never a topic): jobs-inbox, matching-inbox, notifications-inbox, media-inbox
                       (the events go to its bulk lane's queue, <queue>-bulk, behind no interactive work)
  --types t1,t2        event types (default: every type the queue subscribes to)
  --since T, --until T event time bounds, ISO 8601 (2026-11-01 or 2026-11-01T12:00:00Z); --until defaults to now
  --dry-run            count and list what would be sent; send nothing
  --rate <n>           events per second at most (default ${DEFAULT_REPLAY_RATE}; 0: no limit)
  --checkpoint <file>  where progress is kept (default: under the state dir); an interrupted replay run again resumes
  --fresh              start over, ignoring an interrupted run's checkpoint`;

export interface ReplayArgs {
  queue: string;
  types: string[];
  since?: Date | undefined;
  until?: Date | undefined;
  dryRun: boolean;
  rate: number;
  checkpoint?: string | undefined;
  fresh: boolean;
  help: boolean;
}

/** A date (midnight UTC) or a date-time with an offset. */
const time = (option: string) =>
  z
    .string()
    .refine(
      (value) =>
        z.iso.date().safeParse(value).success || z.iso.datetime({ offset: true }).safeParse(value).success,
      `${option} must be an ISO 8601 date or date-time with an offset (e.g. 2026-11-01 or 2026-11-01T12:00:00Z)`,
    )
    .transform((value) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value))
    .optional();

const argsSchema = z
  .object({
    to: z.string({ message: '--to <queue> is required' }).min(1, '--to <queue> is required'),
    types: z
      .string()
      .optional()
      .transform((value) =>
        value
          ? value
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean)
          : [],
      ),
    since: time('--since'),
    until: time('--until'),
    'dry-run': z.boolean().default(false),
    rate: z
      .string()
      .regex(/^\d+$/, '--rate must be a whole number of events per second (0: no limit)')
      .transform(Number)
      .default(DEFAULT_REPLAY_RATE),
    checkpoint: z.string().min(1).optional(),
    fresh: z.boolean().default(false),
  })
  .refine((a) => !a.since || !a.until || a.since < a.until, '--since must be before --until');

/** The command line of `pnpm replay`; a bad one is a ReplayInputError that says what is wrong. */
export function parseReplayArgs(argv: string[]): ReplayArgs {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        to: { type: 'string' },
        types: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        'dry-run': { type: 'boolean' },
        rate: { type: 'string' },
        checkpoint: { type: 'string' },
        fresh: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    throw new ReplayInputError((error as Error).message);
  }
  if (values.help) return { queue: '', types: [], dryRun: false, rate: 0, fresh: false, help: true };
  const { help: _help, ...rest } = values;
  const parsed = argsSchema.safeParse(rest);
  if (!parsed.success) throw new ReplayInputError(parsed.error.issues.map((i) => i.message).join('; '));
  const a = parsed.data;
  return {
    queue: a.to,
    types: a.types,
    since: a.since,
    until: a.until,
    dryRun: a['dry-run'],
    rate: a.rate,
    checkpoint: a.checkpoint,
    fresh: a.fresh,
    help: false,
  };
}
