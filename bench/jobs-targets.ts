// The HTTP targets compared on the main path: the jobs API (POST /v1/jobs,
// role api, its own database and Redis prefix), a bare Fastify route doing
// one Postgres INSERT (pool 10, like the jobs process), and a bare route doing
// only POST /v1/jobs' database work (createPosting: the posting and its outbox row,
// the same statement on the jobs process' own pool), which splits the gap
// between the first two into the database work and everything around it.
// Used by the jobs-api bench and by the load curve (bench/load-curve.ts).
import { randomBytes } from 'node:crypto';
import { issueApiKey } from '@hireflow/jobs/api-keys';
import { createPosting } from '@hireflow/jobs/postings';
import { jobsService } from '@hireflow/jobs/service';
import { connectDeps, createLogger } from '@hireflow/runtime';
import Fastify from 'fastify';
import pg from 'pg';

const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export const postingBody = JSON.stringify({
  title: 'Backend engineer',
  description: 'Node.js, Postgres, event-driven systems.',
  skills: ['node', 'postgres'],
  location: 'Berlin',
  remote: true,
});

export interface Targets {
  jobs: { url: string; headers: Record<string, string> };
  bare: { url: string; headers: Record<string, string> };
  /** POST /v1/jobs' database work alone: no auth, rate limit, validation or problem handling. */
  work: { url: string; headers: Record<string, string> };
  close(): Promise<void>;
}

export async function startTargets(): Promise<Targets> {
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
  bare.post('/posting', async (request, reply) => {
    const posting = await createPosting(
      deps.orm.em.fork(),
      { tenantId: issued.tenantId, contactEmail: 'bench@example.test' },
      request.body as Parameters<typeof createPosting>[2],
      config.JOB_AUTO_CLOSE_AFTER_MS,
    );
    reply.code(202);
    return { id: posting.id };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });

  const port = (server: { server: { address(): unknown } }) =>
    (server.server.address() as { port: number }).port;
  return {
    jobs: {
      url: `http://127.0.0.1:${port(app)}/v1/jobs`,
      headers: { authorization: `Bearer ${issued.key}` },
    },
    bare: { url: `http://127.0.0.1:${port(bare)}/insert`, headers: {} },
    work: { url: `http://127.0.0.1:${port(bare)}/posting`, headers: {} },
    async close() {
      await app.close();
      await bare.close();
      await pool.end();
      await deps.close();
      await admin.query(`DROP DATABASE IF EXISTS ${jobsDb} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${bareDb} WITH (FORCE)`);
      await admin.end();
    },
  };
}
