// The two listeners of a real service process (docs/design.md, "Listeners"):
// both ports reported to the launcher, internal routes only on the admin
// port and behind its token, and no start in production without a token.
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  createTestDatabase,
  type TestDatabase,
  testAws,
  testTopology,
  uniqueName,
  waitFor,
} from '@hireflow/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const TOKEN = 'admin-listener-test-token-0123456789';

function start(service: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [join(root, 'services', service, 'src/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (b: Buffer) => output.push(b.toString()));
  child.stderr!.on('data', (b: Buffer) => output.push(b.toString()));
  const messages: { type?: string; port?: number; adminPort?: number }[] = [];
  child.on('message', (m: (typeof messages)[number]) => messages.push(m));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return { child, output, messages, exited };
}

describe('a service process', () => {
  let db: TestDatabase | undefined;
  let running: ChildProcess | undefined;
  afterAll(async () => {
    if (running && running.exitCode === null) {
      running.kill('SIGTERM');
      await new Promise((res) => running!.once('exit', res));
    }
    await db?.drop();
  });

  it('with PORT=0 binds two free ports, reports both, and serves /internal only on the admin one, behind the token', async () => {
    db = await createTestDatabase('admin-listener');
    const aws = testAws();
    const topology = await testTopology(aws, 'admin-listener');
    aws.close();
    const proc = start('notifications', {
      DATABASE_URL: db.url,
      AWS_ENDPOINT_URL: inject('awsEndpoint'),
      HIREFLOW_TOPOLOGY_PREFIX: topology.prefix,
      REDIS_PREFIX: `test:${uniqueName('admin-listener')}`,
      PORT: '0',
      ROLE: 'api',
      ADMIN_TOKEN: TOKEN,
      OTEL_SDK_DISABLED: 'true',
    });
    running = proc.child;
    const started = await waitFor(() => proc.messages.find((m) => m.type === 'started'), {
      timeoutMs: 30_000,
      message: `no "started" message (output: ${proc.output.join('')})`,
    });
    expect(started.port).toBeGreaterThan(0);
    expect(started.adminPort).toBeGreaterThan(0);
    expect(started.adminPort).not.toBe(started.port);

    const service = `http://127.0.0.1:${started.port}`;
    const admin = `http://127.0.0.1:${started.adminPort}`;
    const internal = '/internal/notifications?recipient=nobody%40example.test';
    expect((await fetch(`${service}/health/live`)).status).toBe(200);
    expect((await fetch(`${service}${internal}`)).status).toBe(404);
    expect((await fetch(`${admin}${internal}`)).status).toBe(401);
    const authorized = await fetch(`${admin}${internal}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(authorized.status).toBe(200);
    expect(await authorized.json()).toEqual({ items: [], nextCursor: null });

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('refuses to start in production without ADMIN_TOKEN, naming it', async () => {
    const proc = start('media', { NODE_ENV: 'production' });
    expect(await proc.exited).toBe(78);
    expect(proc.output.join('')).toContain('ADMIN_TOKEN: is required when NODE_ENV=production');
  });
});
