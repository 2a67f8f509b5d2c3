// Every ceiling of docs/capacity.md in one run, each beside its bare
// baseline (issue 33): `pnpm bench capacity --all`. Short versions of the
// benches that measure them (their own exported functions, sized through
// their environment variables, read when each is imported here), one after
// another in this process; a table at the end: part, ceiling, baseline,
// ratio. BENCH_CAPACITY_SIZE=smoke: tiny sizes, to see the whole run work
// end to end (its figures mean nothing); default `short` (≤ 10 minutes on a
// quiet 2-core machine); BENCH_CAPACITY_CEILINGS=media,matching runs only
// those benches. Run it alone: the benches it imports keep the sizes
// it gave them for the rest of the process.
import { join } from 'node:path';
import { type BenchReport, printReport, round } from './report.ts';

type Size = 'short' | 'smoke';

interface Part {
  /** The bench file's name (bench/<name>.bench.ts). */
  bench: string;
  env: Record<Size, Record<string, string>>;
  /** The summary rows this bench's report gives: a ceiling beside its baseline. */
  pick(report: BenchReport): Summary[];
}

export interface Summary {
  part: string;
  ceiling: string;
  baseline: string;
  ratio: number;
}

/** A row's field, the row found by a column's value (its start). */
function field(report: BenchReport, column: string, startsWith: string, name: string): string | number {
  const row = report.rows.find((r) => String(r[column] ?? '').startsWith(startsWith));
  return row?.[name] ?? '—';
}

const ratio = (report: BenchReport, name: string) => report.ratios[name] ?? Number.NaN;

const parts: Part[] = [
  {
    bench: 'messaging',
    env: {
      short: { BENCH_ROUNDS: '1', BENCH_MESSAGING_SPLIT: '0', BENCH_MESSAGING_LATENCY_EVENTS: '400' },
      smoke: {
        BENCH_ROUNDS: '1',
        BENCH_MESSAGING_SPLIT: '0',
        BENCH_MESSAGING_EVENTS: '200',
        BENCH_MESSAGING_LATENCY_EVENTS: '100',
      },
    },
    pick: (r) => {
      const baseline = String(field(r, 'variant', 'baseline: fauxqs SQS', 'best'));
      const rate = (text: string) => Number.parseFloat(text.replace(/,/g, ''));
      const endToEnd = String(field(r, 'variant', 'end to end: producers', 'best'));
      return [
        {
          part: 'outbox relay, one (drain)',
          ceiling: String(field(r, 'variant', 'drain:', 'best')),
          baseline: `SQS SendBatch → Receive → DeleteBatch ${baseline}`,
          ratio: ratio(r, 'drain ÷ SQS baseline'),
        },
        {
          part: 'SQS consumer, one worker, producers active (end to end)',
          ceiling: endToEnd,
          baseline: `same, ${baseline}`,
          ratio: rate(endToEnd) / rate(baseline),
        },
      ];
    },
  },
  {
    bench: 'notifications',
    env: {
      short: { BENCH_ROUNDS: '1' },
      smoke: { BENCH_ROUNDS: '1', BENCH_EMAILS: '60' },
    },
    pick: (r) => [
      {
        part: 'notifications worker, event → SMTP accept',
        ceiling: `${field(r, 'variant', 'event → SNS', 'emails/s (best)')} emails/s`,
        baseline: `nodemailer → SMTP ${field(r, 'variant', 'baseline: nodemailer', 'emails/s (best)')} emails/s`,
        ratio: ratio(r, 'emails/s pipeline ÷ nodemailer direct'),
      },
    ],
  },
  {
    bench: 'jobs-api',
    env: {
      short: { BENCH_ROUNDS: '1', BENCH_DURATION_S: '5' },
      smoke: { BENCH_ROUNDS: '1', BENCH_DURATION_S: '1' },
    },
    pick: (r) => [
      {
        part: 'API process, POST /v1/jobs',
        ceiling: `${r.rows[2]?.['req/s'] ?? '—'} req/s`,
        baseline: `bare Fastify + one INSERT ${r.rows[0]?.['req/s'] ?? '—'} req/s`,
        ratio: ratio(r, 'throughput jobs/bare'),
      },
    ],
  },
  {
    bench: 'media',
    env: {
      short: { BENCH_MEDIA_ROUNDS: '3', BENCH_MEDIA_IMAGES: '12', BENCH_MEDIA_UPLOADS: '15' },
      smoke: { BENCH_MEDIA_ROUNDS: '1', BENCH_MEDIA_IMAGES: '4', BENCH_MEDIA_UPLOADS: '3' },
    },
    pick: (r) => [
      {
        part: 'media worker, S3 → 3 variants → S3',
        ceiling: `${field(r, 'variant', 'worker: S3', 'images/s')} images/s`,
        baseline: `sharp direct ${field(r, 'variant', 'sharp direct (baseline)', 'images/s')} images/s`,
        ratio: ratio(r, 'worker ÷ sharp direct (resizes/s)'),
      },
    ],
  },
  {
    bench: 'matching',
    env: {
      short: { BENCH_MATCHING_SIZES: '10000,100000' },
      smoke: { BENCH_MATCHING_SIZES: '10000' },
    },
    pick: (r) =>
      [
        ...new Set(r.rows.map((row) => String(row.case ?? '')).filter((c) => c.startsWith('1 posting vs'))),
      ].map((what) => {
        const at = (variant: string) =>
          r.rows.find((row) => row.case === what && row.variant === variant)?.['p50 ms'];
        return {
          part: `matching: ${what}, p50`,
          ceiling: `${at('search')} ms`,
          baseline: `bare dot-product scan ${at('bare scan (same kernel, every dot out)')} ms`,
          // The bench names its ratio by the size alone: "search ÷ bare scan p50, 1 posting vs 10k".
          ratio: ratio(r, `search ÷ bare scan p50, ${what.replace(/ candidates$/, '')}`),
        };
      }),
  },
  {
    bench: 'footprint',
    env: {
      short: { BENCH_ROUNDS: '1', FOOTPRINT_ONLY: 'jobs', FOOTPRINT_IDLE_MS: '2000' },
      smoke: { BENCH_ROUNDS: '1', FOOTPRINT_ONLY: 'jobs', FOOTPRINT_IDLE_MS: '500', FOOTPRINT_LOAD: 'off' },
    },
    pick: (r) => {
      const baseline = `fastify + pg + ioredis ${field(r, 'process', 'fastify+pg+ioredis', 'idle RSS MB')} MB`;
      const rss = (process: string, column: string) => Number(field(r, 'process', process, column));
      const base = rss('fastify+pg+ioredis', 'idle RSS MB');
      return (['jobs api', 'jobs worker'] as const).map((name) => {
        const loaded = rss(`${name}, under work`, 'RSS MB after 10,000');
        const figure = Number.isFinite(loaded) ? loaded : rss(name, 'idle RSS MB');
        return {
          part: `${name === 'jobs api' ? 'an API' : 'a worker'} process, RSS ${Number.isFinite(loaded) ? 'after 10,000 requests or events' : 'idle (no load in this size)'}`,
          ceiling: `${round(figure, 1)} MB`,
          baseline,
          ratio: figure / base,
        };
      });
    },
  },
];

/** BENCH_CAPACITY_CEILINGS=media,matching: only these benches (default: every one). */
const ONLY = process.env.BENCH_CAPACITY_CEILINGS?.split(',').filter(Boolean);

/** Runs each part's bench at `size`, prints its report, and returns the summary rows. */
export async function everyCeiling(size: Size): Promise<Summary[]> {
  const unknown = ONLY?.filter((name) => !parts.some((p) => p.bench === name)) ?? [];
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_CAPACITY_CEILINGS: no bench ${unknown.join(', ')}; have ${parts.map((p) => p.bench).join(', ')}`,
    );
  }
  const summaries: Summary[] = [];
  for (const part of parts.filter((p) => !ONLY || ONLY.includes(p.bench))) {
    const env = part.env[size];
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    const started = performance.now();
    try {
      const mod = (await import(join(import.meta.dirname, `${part.bench}.bench.ts`))) as {
        default: () => Promise<BenchReport>;
      };
      const report = await mod.default();
      printReport(`${part.bench} (in capacity --all, ${size})`, report);
      console.log(`${part.bench}: ${round((performance.now() - started) / 1000, 0)} s`);
      summaries.push(...part.pick(report));
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }
  return summaries;
}
