import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@hireflow/testing';
import { type OtlpReceiver, startOtlpReceiver } from '@hireflow/testing/otlp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness, validPosting } from './harness.ts';

// A trace of POST /v1/jobs as production makes it: the jobs API in a process
// of its own with the telemetry preload (docs/tracing.md), exporting to a
// receiver here. The harness gives it a database, a topology and tenants.

const root = resolve(import.meta.dirname, '../../..');
/** A statement span's name: an operation and the tables it names, one or more times. */
const OPERATION_THEN_TABLES =
  /^(SELECT|INSERT|UPDATE|DELETE)( [a-z_]+)+( (SELECT|INSERT|UPDATE|DELETE)( [a-z_]+)+)*$/;
/** The posting and its outbox row: one named prepared statement (`hf_…`). */
const POSTING_INSERT = 'INSERT job_posting INSERT outbox';

let h: JobsHarness;
let otlp: OtlpReceiver;
let child: ChildProcess;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  h = await startJobsHarness('jobs-trace');
  otlp = await startOtlpReceiver();
  child = spawn(
    process.execPath,
    ['--import', join(root, 'libs/telemetry/src/register.ts'), join(root, 'services/jobs/src/main.ts')],
    {
      env: {
        ...process.env,
        ...h.env,
        ROLE: 'api',
        PORT: '0',
        ADMIN_PORT: '0',
        LOG_LEVEL: 'info',
        OTEL_SERVICE_NAME: 'jobs',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('{')) logs.push(JSON.parse(line));
  });
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  await otlp?.close();
  await h?.close();
});

describe('a trace of POST /v1/jobs from a jobs process with the telemetry preload', () => {
  it('names each statement by operation and tables, a prepared one too, through every instrumentation', async () => {
    const port = await new Promise<number>((ready, fail) => {
      child.on('message', (m: { type?: string; port?: number }) => m.type === 'started' && ready(m.port!));
      child.once('exit', (code) => fail(new Error(`jobs exited (${code}) during start`)));
    });
    const res = await fetch(`http://127.0.0.1:${port}/v1/jobs`, {
      method: 'POST',
      headers: { ...h.tenants.a.auth, 'content-type': 'application/json' },
      body: JSON.stringify(validPosting),
    });
    expect(res.status).toBe(202);
    const { traceId } = (await res.json()) as { traceId: string };
    // Spans arrive in batches: wait for the prepared statement's (whatever its name) and the request's.
    const spans = await waitFor(
      () => {
        const found = otlp.spans.filter((s) => s.traceId === traceId);
        const done = ['db.postgresql.plan', 'http.route'].every((key) =>
          found.some((s) => key in s.attributes),
        );
        return done && found;
      },
      { timeoutMs: 20_000, message: `the request's and the posting insert's spans of trace ${traceId}` },
    );

    // Statements: named per the database conventions, whatever their prepared name.
    const statements = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-pg');
    const insert = statements.find((s) => 'db.postgresql.plan' in s.attributes)!;
    expect(insert.attributes['db.postgresql.plan']).toMatch(/^hf_[0-9a-f]{20}$/);
    expect(insert.name).toBe(POSTING_INSERT);
    expect(insert.attributes['db.query.summary']).toBe(POSTING_INSERT);
    for (const { name } of statements) expect(name).toMatch(OPERATION_THEN_TABLES);
    // MikroORM's own statements (the API key's lookup) too.
    expect(statements.filter((s) => s.name.startsWith('SELECT ')).length).toBeGreaterThan(0);

    // Every instrumentation the request crosses still records (the loader hook wraps only their modules).
    const scopes = new Set(spans.map((s) => s.scope));
    for (const scope of [
      '@opentelemetry/instrumentation-http',
      '@fastify/otel',
      '@opentelemetry/instrumentation-pg',
      // The front door's rate limit counters, in Redis.
      '@opentelemetry/instrumentation-ioredis',
    ]) {
      expect(scopes, `${scope} in ${[...scopes].join(', ')}`).toContain(scope);
    }
    // pino's instrumentation: the request's log lines name its trace.
    expect(logs.some((line) => line.trace_id === traceId)).toBe(true);
  });
});
