// POST /v1/jobs under load (autocannon, 127.0.0.1 only) next to a bare
// Fastify route doing one Postgres INSERT, in the same run, interleaved.
// The jobs route does what the design asks: authenticate (cached key lookup),
// rate-limit in Redis, validate, and one transaction writing the posting and
// its outbox row, then schedule the delayed auto-close job in Redis.
import { randomBytes } from 'node:crypto';
import { issueApiKey } from '@hireflow/jobs/api-keys';
import { jobsService } from '@hireflow/jobs/service';
import { connectDeps, createLogger } from '@hireflow/runtime';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { type BenchReport, round } from './report.ts';

const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 50;

const body = JSON.stringify({
  title: 'Backend engineer',
  description: 'Node.js, Postgres, event-driven systems.',
  skills: ['node', 'postgres'],
  location: 'Berlin',
  remote: true,
});

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
  const suffix = randomBytes(4).toString('hex');
  const jobsDb = `hfbench_jobs_${suffix}`;
  const bareDb = `hfbench_bare_${suffix}`;
  const config = jobsService.loadConfig({
    DATABASE_URL: `${SERVER}/${jobsDb}`,
    REDIS_PREFIX: `bench:${suffix}`,
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9', // the API role never calls SNS/SQS on this path
    ROLE: 'api',
    LOG_LEVEL: 'silent',
    PORT: '0',
    RATE_LIMIT_MAX: '1000000',
  });
  const deps = await connectDeps(config, {
    service: 'jobs',
    entities: jobsService.entities,
    migrations: jobsService.migrations,
    env: {},
    log: createLogger('jobs', 'silent'),
  });
  const app = await jobsService.buildApp(config, deps, { accepting: () => true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const issued = await issueApiKey(deps.orm.em.fork(), 'bench', 'bench@example.test');

  const admin = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${bareDb}`);
  const pool = new pg.Pool({ connectionString: `${SERVER}/${bareDb}`, max: 10 });
  await pool.query(
    'CREATE TABLE posting (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), body jsonb NOT NULL)',
  );
  const bare = Fastify({ logger: false });
  bare.post('/insert', async (request, reply) => {
    const { rows } = await pool.query('INSERT INTO posting (body) VALUES ($1) RETURNING id', [request.body]);
    reply.code(202);
    return { id: rows[0].id };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });

  const port = (server: { server: { address(): unknown } }) =>
    (server.server.address() as { port: number }).port;
  const jobsUrl = `http://127.0.0.1:${port(app)}/v1/jobs`;
  const bareUrl = `http://127.0.0.1:${port(bare)}/insert`;
  const runs: { jobs: Run[]; bare: Run[] } = { jobs: [], bare: [] };
  try {
    await load(bareUrl, {}); // warm-up, both
    await load(jobsUrl, { authorization: `Bearer ${issued.key}` });
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await load(bareUrl, {}));
      runs.jobs.push(await load(jobsUrl, { authorization: `Bearer ${issued.key}` }));
    }
  } finally {
    await app.close();
    await bare.close();
    await pool.end();
    await deps.close();
    await admin.query(`DROP DATABASE IF EXISTS ${jobsDb} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${bareDb} WITH (FORCE)`);
    await admin.end();
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
  const jobsRow = summary(
    'POST /v1/jobs (auth, rate limit, validation, tx: posting + outbox, auto-close job)',
    runs.jobs,
  );
  return {
    description: `autocannon ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} interleaved rounds; no OTel preload in this process.`,
    rows: [bareRow, jobsRow],
    ratios: {
      'throughput jobs/bare': Number(jobsRow['req/s']) / Number(bareRow['req/s']),
      'p99 latency jobs/bare': Number(jobsRow['p99 ms']) / Number(bareRow['p99 ms']),
    },
  };
}
