import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { moduleRecorder, packagesOf } from '@hireflow/testing/modules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What the telemetry preload brings into every service process (issue 31):
// the trace SDK, one OTLP/HTTP exporter and the instrumentations in use, and
// nothing of what @opentelemetry/sdk-node and the auto-instrumentations
// package loaded whatever the settings said.

const register = fileURLToPath(new URL('../src/register.ts', import.meta.url));
let dir: string;
let runs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hireflow-preload-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The npm packages a process with the preload alone has loaded by the time it exits. */
async function packagesLoaded(env: Record<string, string>): Promise<Set<string>> {
  const file = join(dir, `${++runs}.txt`);
  await promisify(execFile)(
    process.execPath,
    ['--import', moduleRecorder, '--import', register, '--input-type=module', '-e', ''],
    // Nothing listens there: the exporter is created, never called.
    {
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        ...env,
        LOADED_MODULES_FILE: file,
      },
    },
  );
  return packagesOf((await readFile(file, 'utf8')).split('\n'));
}

const FORBIDDEN = [
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  '@opentelemetry/sdk-node',
  '@opentelemetry/auto-instrumentations-node',
  '@opentelemetry/exporter-trace-otlp-grpc',
  '@opentelemetry/otlp-grpc-exporter-base',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-grpc',
  '@opentelemetry/exporter-logs-otlp-http',
  '@opentelemetry/exporter-logs-otlp-proto',
  '@opentelemetry/exporter-logs-otlp-grpc',
  '@opentelemetry/exporter-prometheus',
  '@opentelemetry/exporter-zipkin',
  '@opentelemetry/sdk-logs',
];
const ENABLED = [
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/instrumentation-ioredis',
  '@opentelemetry/instrumentation-aws-sdk',
  '@opentelemetry/instrumentation-pino',
  '@fastify/otel',
];

/** Loaded packages that must not be: the list above, any other instrumentation, any cloud resource detector. */
function forbidden(packages: Set<string>): string[] {
  return [...packages].filter(
    (name) =>
      FORBIDDEN.includes(name) ||
      (name.startsWith('@opentelemetry/instrumentation-') && !ENABLED.includes(name)) ||
      name.startsWith('@opentelemetry/resource-detector-'),
  );
}

describe('the telemetry preload', () => {
  it('loads the trace SDK, the OTLP/HTTP protobuf exporter and the enabled instrumentations, nothing else of OpenTelemetry', async () => {
    const packages = await packagesLoaded({});
    expect(forbidden(packages)).toEqual([]);
    for (const name of ['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-proto', ...ENABLED]) {
      expect(packages, name).toContain(name);
    }
    expect(packages).not.toContain('@opentelemetry/exporter-trace-otlp-http');
  });

  it('loads the JSON exporter alone when OTEL_EXPORTER_OTLP_PROTOCOL says http/json', async () => {
    const packages = await packagesLoaded({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(forbidden(packages)).toEqual([]);
    expect(packages).toContain('@opentelemetry/exporter-trace-otlp-http');
    expect(packages).not.toContain('@opentelemetry/exporter-trace-otlp-proto');
  });

  it('loads only the instrumentations OTEL_NODE_ENABLED_INSTRUMENTATIONS names (and @fastify/otel)', async () => {
    const packages = await packagesLoaded({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg,http' });
    const instrumentations = [...packages].filter((name) => ENABLED.includes(name)).sort();
    expect(instrumentations).toEqual([
      '@fastify/otel',
      '@opentelemetry/instrumentation-http',
      '@opentelemetry/instrumentation-pg',
    ]);
  });

  it('loads no OpenTelemetry SDK at all when OTEL_SDK_DISABLED=true', async () => {
    const packages = await packagesLoaded({ OTEL_SDK_DISABLED: 'true' });
    expect(
      [...packages].filter((name) => name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api'),
    ).toEqual([]);
  });
});
