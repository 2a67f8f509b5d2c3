// The idempotency wrapper's cost on a handler whose effect is one small
// Postgres INSERT: the bare handler, the wrapper (claim + work + completion)
// and its transactional mode, plus a redelivered (already completed) key;
// and beside them the bare handler writing a second, key-shaped row in the
// same statement (no claim logic): what any design that commits a key with
// the work pays in the database, the ceiling of the wrapper's ratio.
// Variants alternate within each round so that drift hits them alike.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  createDatabase,
  type Database,
  defineSqlMigration,
  dropDatabase,
  ensureDatabase,
  migrateDatabase,
  type Sql,
} from '@hireflow/db';
import { idempotencyMigrations, idempotent, idempotentStatement } from '@hireflow/idempotency';
import { type BenchReport, percentile, round } from './report.ts';

const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const CONCURRENCY = 10;
const CALLS_PER_ROUND = 1_500;
const ROUNDS = 5;

type Call = (id: string) => Promise<unknown>;

export default async function idempotencyBench(): Promise<BenchReport> {
  const name = `hfbench_idempotency_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(`${SERVER}/${name}`);
  const orm = createDatabase({
    url: `${SERVER}/${name}`,
    poolMax: CONCURRENCY,
    migrations: [
      ...idempotencyMigrations,
      defineSqlMigration('9000-bench-event', [
        'CREATE TABLE bench_event (id text PRIMARY KEY, payload jsonb NOT NULL)',
        // processed_message's shape without the claim logic: the key row and its indexes
        'CREATE TABLE bench_key (key text PRIMARY KEY, token bigint NOT NULL, created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL)',
        'CREATE INDEX bench_key_expires_at_idx ON bench_key (expires_at)',
        'CREATE SEQUENCE bench_key_token_seq AS bigint',
      ]),
    ],
  });
  try {
    await migrateDatabase(orm);
    return await measure(orm);
  } finally {
    await orm.close();
    await dropDatabase(`${SERVER}/${name}`);
  }
}

async function measure(orm: Database): Promise<BenchReport> {
  const handler = (em: Sql, id: string) =>
    em.execute('INSERT INTO bench_event (id, payload) VALUES (?, ?)', [
      id,
      JSON.stringify({ id, kind: 'bench' }),
    ]);
  // keys completed beforehand, for the redelivery variant
  await runRound((id) => idempotent(orm, { key: id }, (em) => handler(em, id)), 'seed');
  const variants: Record<string, Call> = {
    'no wrapper': (id) => handler(orm.em.fork(), id),
    // the bare handler plus a key row in the same statement: the database work of a key committed with the work
    'no wrapper, two rows': (id) =>
      orm.em.fork().execute(
        `WITH k AS (INSERT INTO bench_key (key, token, created_at, expires_at)
                      VALUES (?, nextval('bench_key_token_seq'), now(), now() + interval '1 day') RETURNING key)
           INSERT INTO bench_event (id, payload) SELECT ?, ? FROM k`,
        [id, id, JSON.stringify({ id, kind: 'bench' })],
      ),
    idempotent: (id) => idempotent(orm, { key: id }, (em) => handler(em, id)),
    'idempotent, transactional': (id) =>
      idempotent(orm, { key: id, transactional: true }, (em) => handler(em, id)),
    // the same guarantee as transactional (effect and completion commit together), one statement
    'idempotent, one statement': (id) =>
      idempotentStatement(
        orm,
        { key: id },
        {
          sql: 'INSERT INTO bench_event (id, payload) SELECT ?, ? FROM claimed',
          params: [id, JSON.stringify({ id, kind: 'bench' })],
        },
      ),
    // the same, as a named prepared statement (parsed and planned once per connection; its parameters cast)
    'idempotent, one statement, prepared': (id) =>
      idempotentStatement(
        orm,
        { key: id },
        {
          sql: 'INSERT INTO bench_event (id, payload) SELECT ?::text, ?::jsonb FROM claimed',
          params: [id, JSON.stringify({ id, kind: 'bench' })],
          prepared: true,
        },
      ),
    // transactional with a work that returns nothing, as event handlers do: the completion is not needed
    'idempotent, transactional, no result': (id) =>
      idempotent(orm, { key: id, transactional: true }, async (em) => {
        await handler(em, id);
      }),
    // a redelivery: the key is completed, so the wrapper returns the stored result and runs nothing
    'duplicate (replay)': (id) =>
      idempotent(orm, { key: `seed:${id.split(':')[1]}` }, (em) => handler(em, id)),
  };
  const names = Object.keys(variants);
  const samples = new Map(
    names.map((n) => [n, { latencies: [] as number[], calls: 0, seconds: 0, rounds: [] as number[] }]),
  );

  for (let r = -1; r < ROUNDS; r++) {
    // rotate the order so no variant always runs first (or on a warm pool)
    const order = names.map((_, i) => names[(i + Math.max(r, 0)) % names.length]!);
    for (const variant of order) {
      const run = await runRound(variants[variant]!, `${r}-${variant}`);
      if (r < 0) continue; // warm-up round
      const sample = samples.get(variant)!;
      sample.latencies.push(...run.latencies);
      sample.calls += run.latencies.length;
      sample.seconds += run.seconds;
      sample.rounds.push(run.latencies.length / run.seconds);
    }
  }

  const base = samples.get('no wrapper')!;
  const baseP50 = percentile(base.latencies, 50);
  const baseP99 = percentile(base.latencies, 99);
  const throughput = (n: string) => samples.get(n)!.calls / samples.get(n)!.seconds;
  const rows = names.map((n) => {
    const { latencies } = samples.get(n)!;
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    return {
      variant: n,
      'calls/s': Math.round(throughput(n)),
      'p50 ms': round(p50, 3),
      'p99 ms': round(p99, 3),
      'added p50 ms': round(p50 - baseP50, 3),
      'added p99 ms': round(p99 - baseP99, 3),
    };
  });
  const perRound = (n: string) => {
    const base = samples.get('no wrapper')!.rounds;
    return samples.get(n)!.rounds.map((r, i) => r / base[i]!);
  };
  return {
    checks: [
      {
        row: 'idempotent handler ÷ bare handler (throughput)',
        values: perRound('idempotent'),
        kind: 'min',
        target: 0.8,
        unit: 'ratio',
        beside: `bare ${Math.round(throughput('no wrapper'))} calls/s`,
      },
      {
        row: 'idempotent, one statement (exactly once) ÷ bare handler (throughput)',
        values: perRound('idempotent, one statement'),
        kind: 'min',
        target: 0.8,
        unit: 'ratio',
      },
      {
        row: 'idempotent, transactional ÷ bare handler (throughput)',
        values: perRound('idempotent, transactional'),
        kind: 'min',
        target: 0.8,
        unit: 'ratio',
      },
      {
        row: 'idempotent, one statement, prepared ÷ bare handler (throughput)',
        values: perRound('idempotent, one statement, prepared'),
        kind: 'min',
        target: 0.8,
        unit: 'ratio',
      },
      {
        row: 'idempotent, transactional, no result ÷ bare handler (throughput)',
        values: perRound('idempotent, transactional, no result'),
        kind: 'min',
        target: 0.8,
        unit: 'ratio',
      },
    ],
    description:
      `A handler doing one small Postgres INSERT, concurrency ${CONCURRENCY} over a pool of ${CONCURRENCY}, ` +
      `${ROUNDS} interleaved rounds of ${CALLS_PER_ROUND} calls per variant (after a warm-up round); ` +
      'added = variant percentile minus the bare handler percentile.',
    rows,
    ratios: {
      'idempotent ÷ no wrapper (throughput)': throughput('idempotent') / throughput('no wrapper'),
      'transactional ÷ no wrapper (throughput)':
        throughput('idempotent, transactional') / throughput('no wrapper'),
      'one statement ÷ no wrapper (throughput)':
        throughput('idempotent, one statement') / throughput('no wrapper'),
      'duplicate replay ÷ no wrapper (throughput)':
        throughput('duplicate (replay)') / throughput('no wrapper'),
      // The ceiling of a key committed with the work (median of rounds): no wrapper can beat it.
      'two rows, no wrapper ÷ no wrapper (median of rounds)': median(perRound('no wrapper, two rows')),
      'one statement, prepared ÷ two rows, no wrapper (median of rounds)': median(
        samples
          .get('idempotent, one statement, prepared')!
          .rounds.map((r, i) => r / samples.get('no wrapper, two rows')!.rounds[i]!),
      ),
    },
  };
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

async function runRound(call: Call, label: string): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < CALLS_PER_ROUND) {
      const id = `${label}:${next++}`;
      const start = performance.now();
      await call(id);
      latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, seconds: (performance.now() - start) / 1000 };
}
