import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The telemetry preload's ESM hook wraps built-in modules only (issue 31,
// docs/tracing.md "What a process loads"): a package's file it wrapped was
// lexed by import-in-the-middle's WebAssembly lexers, ~3.5 MB of every
// process. pg, ioredis and pino are patched through require-in-the-middle
// instead, ioredis and pino because this package `require`s them. A process
// with the preload imports what a service imports (fixtures/preload-probe.ts)
// and reports what was wrapped and what was patched.

const root = join(import.meta.dirname, '../../..');
const register = join(root, 'libs/telemetry/src/register.ts');

interface Probe {
  wrapped: string[];
  instances: number;
  traceId: string;
  pgQuery: boolean;
  pgPoolConnect: boolean;
  redisSendCommand: boolean;
}

describe('a process with the telemetry preload', () => {
  it('wraps no package in the ESM hook, starts no WebAssembly lexer, and still patches pg, ioredis and pino', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', register, join(import.meta.dirname, 'fixtures/preload-probe.ts')],
      // Nothing listens there: the exporter is created, never reached in time to matter.
      { env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } },
    );
    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { probe?: Probe; msg?: string; trace_id?: string });
    const probe = lines.find((line) => line.probe)?.probe;
    expect(probe).toBeDefined();
    // Only built-ins (their exports are read from the module, no lexer), and http is one.
    expect(probe!.wrapped.filter((url) => !url.startsWith('node:'))).toEqual([]);
    expect(probe!.wrapped).toContain('node:http?iitm=true');
    expect(probe!.instances).toBe(0);
    // Every instrumentation patched its module all the same.
    expect(probe!.pgQuery).toBe(true);
    expect(probe!.pgPoolConnect).toBe(true);
    expect(probe!.redisSendCommand).toBe(true);
    // pino's: the line logged in a span names its trace.
    expect(lines.find((line) => line.msg === 'probe line')?.trace_id).toBe(probe!.traceId);
  });
});
