// Hireflow's libraries next to what a Node team would pick for the same job,
// interleaved in one process and one run (docs/performance.md, "Peers"):
//
// (a) idempotency: the generic `idempotent(...)` wrapper in lease and in
//     transactional mode, around one small Postgres INSERT, against AWS
//     Lambda Powertools' `makeIdempotent` with its Redis cache layer
//     (`@aws-lambda-powertools/idempotency/cache` on `@redis/client`) around
//     the same INSERT; and a replay of a completed key on each side.
// (b) SQS consumption: `SqsConsumer` against sqs-consumer in its batch mode
//     (`handleMessageBatch`, batchSize 10), each draining a backlog of the
//     same messages from a queue of its own on the same emulator.
//     Beside them, ceilings: each mode's database work sent by pg with no
//     wrapper (see the variants named "ceiling").
// (c) the welcome-email path against a peer pipeline (sqs-consumer +
//     Powertools + BullMQ + nodemailer) is not built yet (docs/performance.md).
//
// Every figure is a ratio within a round: absolute rates on the shared
// machine drift 2x within an hour. BENCH_PEERS=a,b picks parts.
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { hireflowEvents } from '@hireflow/contracts';
import {
  createDatabase,
  type Database,
  defineSqlMigration,
  dropDatabase,
  ensureDatabase,
  migrateDatabase,
  type Sql,
} from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { idempotencyMigrations, idempotent } from '@hireflow/idempotency';
import { SqsConsumer } from '@hireflow/messaging';
import { createSqsClient } from '@hireflow/runtime';
import { candidateRegistered } from '@hireflow/testing/events';
import { createClient } from '@redis/client';
import { Consumer } from 'sqs-consumer';
import { type BenchReport, type Check, median, percentile, round } from './report.ts';

const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PARTS = new Set((process.env.BENCH_PEERS ?? 'a,b').split(','));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 10;
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 1_500);
/** Passes over the variants per round (part a); CALLS_PER_ROUND is split among them. */
const SLICES = 5;
const MESSAGES_PER_ROUND = Number(process.env.BENCH_MESSAGES ?? 2_000);
const REGION = 'eu-west-1';
/**
 * The bench queues' visibility timeout: a message received but never settled
 * (see the drain loop: a poll abandoned at a drain's end) comes back only
 * after it, and a drain would wait for it (docs/performance.md, "Round 2").
 */
const VISIBILITY_SECONDS = Number(process.env.BENCH_VISIBILITY_SECONDS ?? 5);
/** Both consumers' long poll (WaitTimeSeconds). */
const POLL_SECONDS = 1;
/** The lease, on both sides: our `leaseMs`, Powertools' in-progress expiry (remaining time of the "invocation"). */
const LEASE_MS = 30_000;

type Call = (id: string) => Promise<unknown>;

export default async function peersBench(): Promise<BenchReport> {
  const rows: Record<string, string | number>[] = [];
  const ratios: Record<string, number> = {};
  const checks: Check[] = [];
  if (PARTS.has('a')) {
    const a = await idempotencyPart();
    rows.push(...a.rows);
    Object.assign(ratios, a.ratios);
    checks.push(...a.checks);
  }
  if (PARTS.has('b')) {
    const b = await consumerPart();
    rows.push(...b.rows);
    Object.assign(ratios, b.ratios);
    checks.push(...b.checks);
  }
  return {
    description:
      `Peers, interleaved rounds in one process (${ROUNDS} rounds after a warm-up): ` +
      `(a) one INSERT wrapped, concurrency ${CONCURRENCY}, pool ${CONCURRENCY}, ${CALLS_PER_ROUND} calls a round per variant in ${SLICES} passes; ` +
      `(b) a backlog of ${MESSAGES_PER_ROUND} messages per consumer per round, drained in ${SLICES} parts. Parts: ${[...PARTS].join(',')}.`,
    rows,
    ratios,
    checks,
  };
}

// ---------------------------------------------------------------- (a) idempotency

async function idempotencyPart() {
  const name = `hfbench_peers_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(`${SERVER}/${name}`);
  const orm = createDatabase({
    url: `${SERVER}/${name}`,
    poolMax: CONCURRENCY,
    migrations: [
      ...idempotencyMigrations,
      defineSqlMigration('9000-bench-event', [
        'CREATE TABLE bench_event (id text PRIMARY KEY, payload jsonb NOT NULL)',
        // A row shaped as a key of processed_message (primary key, a sequence value, an expiry index): the ceilings'.
        'CREATE SEQUENCE bench_key_seq AS bigint',
        `CREATE TABLE bench_key (key text PRIMARY KEY, token bigint NOT NULL DEFAULT nextval('bench_key_seq'),
           result jsonb, expires_at timestamptz NOT NULL DEFAULT now() + interval '15 days')`,
        'CREATE INDEX bench_key_expires_at_idx ON bench_key (expires_at)',
      ]),
    ],
  });
  const redis = createClient({ url: REDIS_URL });
  await redis.connect();
  const keyPrefix = `hfbench-peers-${randomBytes(4).toString('hex')}`;
  try {
    await migrateDatabase(orm);
    // Powertools as its docs set it up: a connected client, the cache layer.
    return await measureIdempotency(orm, new CachePersistenceLayer({ client: redis as never }), keyPrefix);
  } finally {
    // Powertools' keys are `<prefix>#<md5 of the payload's key>`: they go with the run.
    for await (const keys of redis.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await redis.del(keys);
    }
    redis.destroy();
    await orm.close();
    await dropDatabase(`${SERVER}/${name}`);
  }
}

async function measureIdempotency(orm: Database, persistenceStore: CachePersistenceLayer, keyPrefix: string) {
  // The same work on every side: one INSERT through the ORM's pool, a small result.
  const insert = async (em: Sql, id: string) => {
    await em.execute('INSERT INTO bench_event (id, payload) VALUES (?, ?)', [
      id,
      JSON.stringify({ id, kind: 'bench' }),
    ]);
    return { id };
  };
  // Powertools: the key taken from the payload. Outside Lambda there is no remaining time to
  // bound an in-progress record: without a registered context every call
  // warns, and a crashed holder's record counts as orphaned at once (the next
  // call takes it over). A context whose remaining time is the lease gives it
  // the same lease as ours.
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'id' });
  config.registerLambdaContext({ getRemainingTimeInMillis: () => LEASE_MS } as never);
  const powertools = makeIdempotent(async (payload: { id: string }) => insert(orm.em.fork(), payload.id), {
    persistenceStore,
    config,
    keyPrefix,
  });

  // Keys completed beforehand on each side, for the replay variants.
  await runRound((id) => idempotent(orm, { key: id }, (em) => insert(em, id)), 'seed');
  await runRound((id) => powertools({ id }), 'ptseed');
  // The design's database work with a wrapper that costs nothing, as ceilings in
  // the same run (the statements sent by pg, prepared; the work as on every
  // side): lease mode's three commits in series (a key row claimed, the work,
  // the key completed: a HOT update) and transactional mode's one transaction
  // in three round trips (BEGIN with the key's lock and a look at it, the
  // work, the key row with its result and COMMIT; the work's INSERT sent by pg
  // on the transaction's connection, beside the scope's own). Beside it the same
  // with transactional mode's statements as built: the key row inserted with
  // BEGIN, its result updated with COMMIT.
  const pool = orm.pool;
  const claimRow = { name: 'bench_claim', text: 'INSERT INTO bench_key (key) VALUES ($1)' };
  const completeRow = {
    name: 'bench_complete',
    text: 'UPDATE bench_key SET result = $2::jsonb WHERE key = $1',
  };
  // The replay's ceiling: a completed key read back by one prepared SELECT on
  // its primary key (the least a key kept in Postgres costs; Powertools' replay
  // is one Redis GET), over keys completed beforehand as lease mode completes them.
  const replayRow = { name: 'bench_replay', text: 'SELECT result FROM bench_key WHERE key = $1' };
  await runRound(async (id) => {
    await pool.query({ ...claimRow, values: [id] });
    await pool.query({ ...completeRow, values: [id, JSON.stringify({ id })] });
  }, 'cseed');
  // A call's id is `<round>.<slice>-<variant>:<n>`, and the replays take `<n>`
  // after the colon: variant names have no colon.
  const variants: Record<string, Call> = {
    'no wrapper (the INSERT alone)': (id) => insert(orm.em.fork(), id),
    'ceiling, lease: 3 commits in series': async (id) => {
      await pool.query({ ...claimRow, values: [id] });
      const result = await insert(orm.em.fork(), id);
      await pool.query({ ...completeRow, values: [id, JSON.stringify(result)] });
      return result;
    },
    'ceiling, transactional: lock first, key row with its result at COMMIT': async (id) => {
      const client = await pool.connect();
      try {
        const key = client.escapeLiteral(id);
        await client.query(
          `BEGIN; SELECT pg_try_advisory_xact_lock(hashtextextended(${key}, 0)), EXISTS (SELECT 1 FROM bench_key WHERE key = ${key})`,
        );
        await client.query('INSERT INTO bench_event (id, payload) VALUES ($1, $2)', [
          id,
          JSON.stringify({ id, kind: 'bench' }),
        ]);
        const result = { id };
        await client.query(
          `INSERT INTO bench_key (key, result) VALUES (${key}, ${client.escapeLiteral(JSON.stringify(result))}); COMMIT`,
        );
        return result;
      } finally {
        client.release();
      }
    },
    'ceiling, transactional as built: key row first, result at COMMIT': async (id) => {
      const client = await pool.connect();
      try {
        const key = client.escapeLiteral(id);
        await client.query(`BEGIN; INSERT INTO bench_key (key, result) VALUES (${key}, 'null')`);
        await client.query('INSERT INTO bench_event (id, payload) VALUES ($1, $2)', [
          id,
          JSON.stringify({ id, kind: 'bench' }),
        ]);
        const result = { id };
        await client.query(
          `UPDATE bench_key SET result = ${client.escapeLiteral(JSON.stringify(result))} WHERE key = ${key}; COMMIT`,
        );
        return result;
      } finally {
        client.release();
      }
    },
    'powertools makeIdempotent, Redis': (id) => powertools({ id }),
    'idempotent, lease': (id) => idempotent(orm, { key: id }, (em) => insert(em, id)),
    'idempotent, transactional': (id) =>
      idempotent(orm, { key: id, transactional: true }, (em) => insert(em, id)),
    'powertools replay (completed key)': (id) => powertools({ id: `ptseed:${id.split(':')[1]}` }),
    'idempotent replay (completed key)': (id) =>
      idempotent(orm, { key: `seed:${id.split(':')[1]}` }, (em) => insert(em, id)),
    'ceiling, replay (one prepared SELECT of the completed key)': async (id) => {
      const { rows } = await pool.query<{ result: unknown }>({
        ...replayRow,
        values: [`cseed:${id.split(':')[1]}`],
      });
      if (rows.length !== 1) throw new Error(`replay ceiling: key cseed:${id.split(':')[1]} not found`);
      return rows[0]!.result;
    },
  };
  // A/B of two versions of the library in one run: BENCH_IDEMPOTENCY_BEFORE names
  // another copy of @hireflow/idempotency's src/index.ts (e.g. main's, checked out
  // beside this one); its modes run as variants of their own.
  if (process.env.BENCH_IDEMPOTENCY_BEFORE) {
    const before = (await import(process.env.BENCH_IDEMPOTENCY_BEFORE)) as { idempotent: typeof idempotent };
    await runRound((id) => before.idempotent(orm, { key: id }, (em) => insert(em, id)), 'bseed');
    Object.assign(variants, {
      'before, idempotent, lease': (id: string) =>
        before.idempotent(orm, { key: id }, (em) => insert(em, id)),
      'before, idempotent, transactional': (id: string) =>
        before.idempotent(orm, { key: id, transactional: true }, (em) => insert(em, id)),
      'before, idempotent replay': (id: string) =>
        before.idempotent(orm, { key: `bseed:${id.split(':')[1]}` }, (em) => insert(em, id)),
    });
  }
  const names = Object.keys(variants);
  const samples = new Map(names.map((n) => [n, { latencies: [] as number[], rounds: [] as number[] }]));
  const cpu = new Map(names.map((n) => [n, [] as number[]]));
  for (let r = -1; r < ROUNDS; r++) {
    // A round is SLICES passes over the variants, each pass in a rotated
    // order: a stall of the shared machine (seconds, at load 20+) then hits
    // every variant of the round rather than one.
    const totals = new Map(names.map((n) => [n, { calls: 0, seconds: 0, cpuMicros: 0 }]));
    for (let slice = 0; slice < SLICES; slice++) {
      const shift = Math.max(r, 0) + slice;
      for (const variant of names.map((_, i) => names[(i + shift) % names.length]!)) {
        const mark = process.cpuUsage();
        const run = await runRound(variants[variant]!, `${r}.${slice}-${variant}`, CALLS_PER_ROUND / SLICES);
        const used = process.cpuUsage(mark);
        const total = totals.get(variant)!;
        total.calls += run.latencies.length;
        total.seconds += run.seconds;
        total.cpuMicros += used.user + used.system;
        if (r >= 0) samples.get(variant)!.latencies.push(...run.latencies);
      }
    }
    if (r < 0) continue; // warm-up round
    for (const n of names) {
      const total = totals.get(n)!;
      samples.get(n)!.rounds.push(total.calls / total.seconds);
      cpu.get(n)!.push(total.cpuMicros / total.calls);
    }
  }
  const perRound = (n: string, base: string) =>
    samples.get(n)!.rounds.map((r, i) => r / samples.get(base)!.rounds[i]!);
  const rows = names.map((n) => {
    const s = samples.get(n)!;
    return {
      part: 'a',
      variant: n,
      'per second (median)': round(median(s.rounds), 0),
      'per round': s.rounds.map((x) => round(x, 0)).join(' / '),
      'p50 ms': round(percentile(s.latencies, 50), 3),
      'p99 ms': round(percentile(s.latencies, 99), 3),
      'process CPU µs/call': round(median(cpu.get(n)!), 0),
    };
  });
  const pt = 'powertools makeIdempotent, Redis';
  const ptReplay = 'powertools replay (completed key)';
  const ratio = (n: string, base: string) => median(perRound(n, base));
  const cpuRatio = (n: string, base: string) => median(cpu.get(n)!.map((c, i) => c / cpu.get(base)![i]!));
  const beside = `Powertools ${round(median(samples.get(pt)!.rounds), 0)} calls/s`;
  const beforeRatios: Record<string, number> = process.env.BENCH_IDEMPOTENCY_BEFORE
    ? {
        '(a) before: idempotent, lease ÷ Powertools': ratio('before, idempotent, lease', pt),
        '(a) before: idempotent, transactional ÷ Powertools': ratio('before, idempotent, transactional', pt),
        '(a) before: idempotent replay ÷ Powertools replay': ratio('before, idempotent replay', ptReplay),
        '(a) lease, this ÷ before': ratio('idempotent, lease', 'before, idempotent, lease'),
        '(a) transactional, this ÷ before': ratio(
          'idempotent, transactional',
          'before, idempotent, transactional',
        ),
        '(a) replay, this ÷ before': ratio('idempotent replay (completed key)', 'before, idempotent replay'),
      }
    : {};
  const checks: Check[] = [
    {
      row: 'idempotent, lease ÷ Powertools on Redis (throughput)',
      values: perRound('idempotent, lease', pt),
      kind: 'min',
      target: 1.0,
      unit: 'ratio',
      beside,
    },
    {
      row: 'idempotent, transactional ÷ Powertools on Redis (throughput)',
      values: perRound('idempotent, transactional', pt),
      kind: 'min',
      target: 1.0,
      unit: 'ratio',
      beside,
    },
    {
      row: 'idempotent replay ÷ Powertools replay (throughput)',
      values: perRound('idempotent replay (completed key)', ptReplay),
      kind: 'min',
      target: 0.8,
      unit: 'ratio',
      beside: `Powertools replay ${round(median(samples.get(ptReplay)!.rounds), 0)} calls/s`,
    },
  ];
  return {
    rows,
    checks,
    ratios: {
      '(a) Powertools ÷ the INSERT alone': ratio(pt, 'no wrapper (the INSERT alone)'),
      '(a) ceiling, lease (3 commits in series) ÷ Powertools': ratio(
        'ceiling, lease: 3 commits in series',
        pt,
      ),
      '(a) ceiling, transactional (lock first, key row at COMMIT) ÷ Powertools': ratio(
        'ceiling, transactional: lock first, key row with its result at COMMIT',
        pt,
      ),
      '(a) ceiling, transactional as built (key row first, result at COMMIT) ÷ Powertools': ratio(
        'ceiling, transactional as built: key row first, result at COMMIT',
        pt,
      ),
      '(a) ceiling, replay (one prepared SELECT) ÷ Powertools replay': ratio(
        'ceiling, replay (one prepared SELECT of the completed key)',
        ptReplay,
      ),
      '(a) idempotent replay ÷ its ceiling': ratio(
        'idempotent replay (completed key)',
        'ceiling, replay (one prepared SELECT of the completed key)',
      ),
      '(a) idempotent, lease ÷ its ceiling': ratio(
        'idempotent, lease',
        'ceiling, lease: 3 commits in series',
      ),
      '(a) idempotent, transactional ÷ its ceiling': ratio(
        'idempotent, transactional',
        'ceiling, transactional: lock first, key row with its result at COMMIT',
      ),
      // Process CPU per call (this process only; Postgres and Redis not counted): less is better.
      '(a) CPU per call, idempotent lease ÷ Powertools': cpuRatio('idempotent, lease', pt),
      '(a) CPU per call, idempotent transactional ÷ Powertools': cpuRatio('idempotent, transactional', pt),
      '(a) CPU per call, idempotent replay ÷ Powertools replay': cpuRatio(
        'idempotent replay (completed key)',
        ptReplay,
      ),
      '(a) idempotent, lease ÷ Powertools': ratio('idempotent, lease', pt),
      '(a) idempotent, transactional ÷ Powertools': ratio('idempotent, transactional', pt),
      '(a) idempotent replay ÷ Powertools replay': ratio('idempotent replay (completed key)', ptReplay),
      ...beforeRatios,
    },
  };
}

async function runRound(
  call: Call,
  label: string,
  calls = CALLS_PER_ROUND,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls) {
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

// ---------------------------------------------------------------- (b) SQS consumers

interface Drainer {
  /** Drains a backlog of `expected` messages (handled and deleted); returns the seconds it took. */
  drain(queueUrl: string, expected: number): Promise<number>;
}

async function consumerPart() {
  const emulator = await startEmulator({ region: REGION });
  const sqs = createSqsClient({ region: REGION, endpoint: emulator.endpoint, dummyCredentials: true });
  const suffix = randomBytes(4).toString('hex');
  const created: string[] = [];
  const queue = async (name: string) => {
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: `bench-peers-${suffix}-${name}`,
        Attributes: { VisibilityTimeout: String(VISIBILITY_SECONDS) },
      }),
    );
    created.push(QueueUrl!);
    return QueueUrl!;
  };
  try {
    const dlq = await queue('dlq');
    const drainers: Record<string, Drainer> = {
      'SqsConsumer (concurrency 10, validates each event)': ours(sqs, dlq, 10),
      'sqs-consumer 15, handleMessageBatch, batchSize 10': peer(sqs, false),
      'sqs-consumer 15, batch, + the same event validation': peer(sqs, true),
    };
    const names = Object.keys(drainers);
    const urls = new Map<string, string>();
    for (const [i, n] of names.entries()) urls.set(n, await queue(`q${i}`));
    const rates = new Map(names.map((n) => [n, [] as number[]]));
    const cpu = new Map(names.map((n) => [n, [] as number[]]));
    const closedAt = new Map<string, number>();
    for (let r = -1; r < ROUNDS; r++) {
      // SLICES passes a round, each in a rotated order (as in part a).
      const totals = new Map(names.map((n) => [n, { messages: 0, seconds: 0, cpuMicros: 0 }]));
      const count = r < 0 ? 100 : Math.round(MESSAGES_PER_ROUND / SLICES);
      for (let slice = 0; slice < SLICES; slice++) {
        const shift = Math.max(r, 0) + slice;
        for (const n of names.map((_, i) => names[(i + shift) % names.length]!)) {
          // A drain ends by closing its consumer, which aborts its long poll; the
          // emulator holds that poll open on its side for up to the poll's wait,
          // and hands it messages nobody reads any more (back only after the
          // visibility timeout). So a queue is filled again only once that has passed.
          const quiet = (closedAt.get(n) ?? 0) + (POLL_SECONDS + 0.5) * 1000 - performance.now();
          if (quiet > 0) await new Promise((resolve) => setTimeout(resolve, quiet));
          await fill(sqs, urls.get(n)!, count);
          const mark = process.cpuUsage();
          const seconds = await drainers[n]!.drain(urls.get(n)!, count);
          const used = process.cpuUsage(mark);
          closedAt.set(n, performance.now());
          const total = totals.get(n)!;
          total.messages += count;
          total.seconds += seconds;
          total.cpuMicros += used.user + used.system;
        }
      }
      if (r < 0) continue;
      for (const n of names) {
        const total = totals.get(n)!;
        rates.get(n)!.push(total.messages / total.seconds);
        cpu.get(n)!.push(total.cpuMicros / total.messages);
      }
    }
    const base = names[1]!;
    const ratioPerRound = (n: string) => rates.get(n)!.map((x, i) => x / rates.get(base)![i]!);
    return {
      rows: names.map((n) => ({
        part: 'b',
        variant: n,
        'per second (median)': round(median(rates.get(n)!), 0),
        'per round': rates
          .get(n)!
          .map((x) => round(x, 0))
          .join(' / '),
        'p50 ms': '',
        'p99 ms': '',
        'process CPU µs/call': round(median(cpu.get(n)!), 0),
      })),
      checks: [
        {
          row: 'SqsConsumer ÷ sqs-consumer batch mode (messages/s)',
          values: ratioPerRound(names[0]!),
          kind: 'min',
          target: 1.0,
          unit: 'ratio',
          beside: `sqs-consumer ${round(median(rates.get(base)!), 0)} msg/s`,
        } satisfies Check,
      ],
      ratios: {
        '(b) SqsConsumer ÷ sqs-consumer': median(ratioPerRound(names[0]!)),
        '(b) process CPU per message, SqsConsumer ÷ sqs-consumer': median(
          cpu.get(names[0]!)!.map((x, i) => x / cpu.get(base)![i]!),
        ),
        '(b) SqsConsumer ÷ sqs-consumer + validation': median(
          rates.get(names[0]!)!.map((x, i) => x / rates.get(names[2]!)![i]!),
        ),
      },
    };
  } finally {
    for (const url of created) await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => {});
    sqs.destroy();
    await emulator.stop();
  }
}

/** Sends `count` raw CloudEvents (as SendMessageBatch of 10, 4 senders); not timed. */
async function fill(sqs: SQSClient, queueUrl: string, count: number): Promise<void> {
  const tenantId = randomUUID();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        const first = next;
        next = Math.min(count, next + 10);
        const entries = Array.from({ length: next - first }, (_, i) => ({
          Id: String(i),
          MessageBody: JSON.stringify(candidateRegistered(tenantId)),
        }));
        await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      }
    }),
  );
}

/** Resolves when `count()` reaches `expected`, polled every 2 ms (bounded). */
async function reached(count: () => number, expected: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (count() < expected) {
    if (Date.now() > deadline) throw new Error(`only ${count()} of ${expected} messages handled`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function ours(sqs: SQSClient, dlqUrl: string, concurrency: number): Drainer {
  return {
    async drain(queueUrl, expected) {
      let handled = 0;
      const consumer = new SqsConsumer({
        sqs,
        queue: { name: queueUrl.split('/').pop()!, url: queueUrl, dlq: { url: dlqUrl } },
        concurrency,
        waitTimeSeconds: POLL_SECONDS,
        visibilityTimeoutSeconds: VISIBILITY_SECONDS,
        handlers: { 'candidate.registered.v1': () => {} },
        // once its delete is done (as sqs-consumer's message_processed)
        onMessage: (record) => {
          if (record.outcome === 'handled') handled += 1;
        },
      });
      const started = performance.now();
      await consumer.start();
      await reached(() => handled, expected);
      const seconds = (performance.now() - started) / 1000;
      await consumer.close();
      return seconds;
    },
  };
}

function peer(sqs: SQSClient, validate: boolean): Drainer {
  return {
    async drain(queueUrl, expected) {
      let handled = 0;
      const consumer = Consumer.create({
        queueUrl,
        sqs,
        batchSize: 10,
        waitTimeSeconds: POLL_SECONDS,
        handleMessageBatch: async (messages) => {
          if (validate) for (const m of messages) hireflowEvents.parse(m.Body ?? '');
          return messages;
        },
      });
      // emitted per message once its batch delete is done
      consumer.on('message_processed', () => {
        handled += 1;
      });
      // stop({ abort: true }) aborts the long poll under way: not an error of the run
      consumer.on('error', (error) => {
        if ((error as { code?: string }).code !== 'AbortError') console.error('sqs-consumer error', error);
      });
      const started = performance.now();
      consumer.start();
      await reached(() => handled, expected);
      const seconds = (performance.now() - started) / 1000;
      consumer.stop({ abort: true });
      return seconds;
    },
  };
}
