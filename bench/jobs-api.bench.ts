// POST /v1/jobs under load (autocannon, 127.0.0.1 only) next to a bare
// Fastify route doing one Postgres INSERT, in the same run, interleaved; and
// beside them a bare route doing only POST /v1/jobs' database work, so the
// ratio splits into the database work the design asks for (posting + outbox
// row) and everything the API does around it.
// The jobs route does what the design asks: authenticate (cached key lookup),
// rate-limit in Redis, validate, and one transaction writing the posting and
// its outbox row in one statement (auto-close is the worker's sweep).
import autocannon from 'autocannon';
import { postingBody as body, startTargets } from './jobs-targets.ts';
import { type BenchReport, round } from './report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 50;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Run> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    connections: CONNECTIONS,
    duration: DURATION_S,
    workers: 1,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

export default async function jobsApiBench(): Promise<BenchReport> {
  const targets = await startTargets();
  const jobsUrl = targets.jobs.url;
  const bareUrl = targets.bare.url;
  const workUrl = targets.work.url;
  const runs: { jobs: Run[]; bare: Run[]; work: Run[] } = { jobs: [], bare: [], work: [] };
  try {
    await load(bareUrl, {}); // warm-up, each
    await load(workUrl, {});
    await load(jobsUrl, targets.jobs.headers);
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await load(bareUrl, {}));
      runs.work.push(await load(workUrl, {}));
      runs.jobs.push(await load(jobsUrl, targets.jobs.headers));
    }
  } finally {
    await targets.close();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const summary = (label: string, rs: Run[]) => ({
    variant: label,
    'req/s': round(mean(rs.map((r) => r.rps)), 0),
    'p50 ms': round(mean(rs.map((r) => r.p50)), 1),
    'p99 ms': round(mean(rs.map((r) => r.p99)), 1),
    non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
  });
  const bareRow = summary('bare Fastify + 1 pg INSERT (pool 10)', runs.bare);
  const workRow = summary(
    "bare Fastify + POST /v1/jobs' database work (createPosting, jobs' pool)",
    runs.work,
  );
  const jobsRow = summary(
    'POST /v1/jobs (auth, rate limit, validation, one statement: posting + outbox)',
    runs.jobs,
  );
  const perRound = (f: (jobs: Run, bare: Run) => number) =>
    runs.jobs.map((jobs, i) => f(jobs, runs.bare[i]!));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const roundsOf = (f: (i: number) => number) => median(runs.jobs.map((_, i) => f(i)));
  return {
    checks: [
      {
        row: 'POST /v1/jobs ÷ bare Fastify + one INSERT (throughput)',
        values: perRound((jobs, bare) => jobs.rps / bare.rps),
        kind: 'min',
        target: 0.7,
        unit: 'ratio',
        beside: `bare ${bareRow['req/s']} req/s`,
      },
      {
        row: 'POST /v1/jobs ÷ bare (p99 latency)',
        values: perRound((jobs, bare) => jobs.p99 / bare.p99),
        kind: 'max',
        target: 1.5,
        unit: 'ratio',
        beside: `bare p99 ${bareRow['p99 ms']} ms`,
      },
    ],
    description: `autocannon ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} interleaved rounds; no OTel preload in this process.`,
    rows: [bareRow, workRow, jobsRow],
    ratios: {
      'throughput jobs/bare': Number(jobsRow['req/s']) / Number(bareRow['req/s']),
      'p99 latency jobs/bare': Number(jobsRow['p99 ms']) / Number(bareRow['p99 ms']),
      // The split, median of the rounds: jobs/bare = (jobs/work) × (work/bare).
      'throughput database work/bare (median of rounds)': roundsOf(
        (i) => runs.work[i]!.rps / runs.bare[i]!.rps,
      ),
      'throughput jobs/database work (median of rounds)': roundsOf(
        (i) => runs.jobs[i]!.rps / runs.work[i]!.rps,
      ),
      'p99 database work/bare (median of rounds)': roundsOf((i) => runs.work[i]!.p99 / runs.bare[i]!.p99),
    },
  };
}
