// No service outlives the launcher (or test) that started it, however that
// one ends and wherever the service is in its start (docs/decisions.md,
// "The launcher"). Each case runs a launcher in miniature (fixtures/parent.ts:
// the launcher's own spawnService) and kills it; the service's dependencies
// are a server that accepts connections and never answers, so a service left
// to itself would wait in its start for ever.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { isRunning, waitFor } from '@hireflow/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const parentScript = join(import.meta.dirname, 'fixtures/parent.ts');
/** Long enough for a loaded machine to load a service's modules; far shorter than an orphan lives. */
const EXIT_DEADLINE_MS = 90_000;

let silent: Server;
let connections = 0;
const sockets = new Set<Socket>();
let address = '';
const started: number[] = [];
const parents: ChildProcess[] = [];

beforeAll(async () => {
  silent = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  address = `127.0.0.1:${(silent.address() as { port: number }).port}`;
});

afterEach(() => {
  // A case that failed leaves its orphan: it must not outlive the test either.
  for (const pid of started.splice(0)) {
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const parent of parents.splice(0)) parent.kill('SIGKILL');
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

/** Starts fixtures/parent.ts and resolves with the pid of the child it spawned. */
async function startParent(
  args: string[],
): Promise<{ parent: ChildProcess; exited: Promise<unknown>; child: number }> {
  const parent = spawn(process.execPath, [parentScript, ...args], {
    env: {
      PATH: process.env.PATH,
      // The run's mark (global setup): should a case fail, its orphan is still reaped at the end.
      HIREFLOW_TEST_RUN: process.env.HIREFLOW_TEST_RUN,
      DATABASE_URL: `postgres://postgres@${address}/hireflow_orphans`,
      REDIS_URL: `redis://${address}`,
      AWS_ENDPOINT_URL: `http://${address}`,
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_LEVEL: 'warn',
      OTEL_SDK_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  parents.push(parent);
  const exited = once(parent, 'exit');
  let output = '';
  parent.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const child = await waitFor(() => Number(/^child (\d+)$/m.exec(output)?.[1]) || undefined, {
    timeoutMs: 30_000,
    message: 'the parent did not spawn its child',
  });
  started.push(child);
  return { parent, exited, child };
}

describe('a service whose launcher is SIGKILLed', () => {
  it('while it still loads its modules exits, though its IPC channel closed before its code ran', async () => {
    const { parent, exited, child } = await startParent(['service', '--hold']);
    parent.kill('SIGKILL');
    await exited;
    await waitFor(() => !isRunning(child), {
      timeoutMs: EXIT_DEADLINE_MS,
      message: `the service ${child} outlived its launcher`,
    });
    // It started nothing: no connection to its dependencies.
    expect(connections).toBe(0);
  }, 150_000);

  it('while it connects to its dependencies exits', async () => {
    const before = connections;
    const { parent, exited, child } = await startParent(['service']);
    await waitFor(() => connections > before, { timeoutMs: 60_000, message: 'the service never connected' });
    parent.kill('SIGKILL');
    await exited;
    await waitFor(() => !isRunning(child), {
      timeoutMs: EXIT_DEADLINE_MS,
      message: `the service ${child} outlived its launcher`,
    });
  }, 180_000);
});

describe('a launcher that exits', () => {
  it('kills the process group of a child that watches nothing', async () => {
    const { exited, child } = await startParent(['exit']);
    expect(await exited).toEqual([3, null]);
    await waitFor(() => !isRunning(child), {
      timeoutMs: 5000,
      message: `the child ${child} outlived its launcher`,
    });
  }, 60_000);
});
