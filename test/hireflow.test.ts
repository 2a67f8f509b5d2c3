// `./hireflow start` against stopped servers (issue 32): with POSTGRES_URL and
// REDIS_URL on loopback ports where nothing answers, it starts a Postgres and
// a Redis of its own there (under the instance's .local/ dir), the system
// becomes ready, and SIGTERM stops the services, then those servers. The
// machine's own Postgres and Redis are never touched: the ports are free ones.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FREE_PORTS, freePort, uniqueName, waitFor } from '@hireflow/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { printedUrls, root } from './launcher.ts';

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

describe('./hireflow', () => {
  const script = join(root, 'hireflow');

  it('is an executable POSIX sh script: any shell starts it, no bash', () => {
    accessSync(script, constants.X_OK);
    expect(readFileSync(script, 'utf8').split('\n')[0]).toBe('#!/bin/sh');
    // /bin/sh is dash on Debian: a bashism would fail its parse.
    for (const file of [script, join(root, 'scripts/bootstrap.sh')]) {
      expect(spawnSync('sh', ['-n', file]).status, file).toBe(0);
    }
    const help = spawnSync(script, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('./hireflow start');
    expect(help.stdout).toContain('./hireflow test');
    expect(spawnSync(script, ['nonsense'], { encoding: 'utf8' }).status).toBe(2);
  });

  it("test's wrapper leaves answering servers alone and passes the command's exit code on", () => {
    // The suite's 127.0.0.1:5432 and :6379 answer here (the global setup needs them): nothing is started.
    const run = spawnSync(
      process.execPath,
      [join(root, 'tools/launcher/src/cli/with-servers.ts'), '--', 'sh', '-c', 'exit 3'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stdout).not.toContain('started our own');
    expect(run.status).toBe(3);
  });
});

describe('./hireflow start with Postgres and Redis stopped', () => {
  const instance = uniqueName('hf')
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 20);
  const stateDir = `.local/test-${instance}`;
  let child: ReturnType<typeof spawn> | undefined;
  let ownDataOutside: string | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      // The launcher's tethers stop its own servers when it is gone, however it ends.
      child.kill('SIGKILL');
    }
    await rm(join(root, stateDir), { recursive: true, force: true });
    if (ownDataOutside) await rm(ownDataOutside, { recursive: true, force: true });
  });

  it('starts its own of each, becomes ready, and stops them with the system', async () => {
    const pgPort = await freePort();
    let redisPort = await freePort();
    while (redisPort === pgPort) redisPort = await freePort();
    expect(await answers(pgPort)).toBe(false);
    expect(await answers(redisPort)).toBe(false);

    child = spawn(join(root, 'hireflow'), ['start'], {
      cwd: root,
      env: {
        ...process.env,
        POSTGRES_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        HIREFLOW_INSTANCE: instance,
        HIREFLOW_STATE_DIR: stateDir,
        ...FREE_PORTS,
        HIREFLOW_SCALING: 'off',
        HIREFLOW_READY_TIMEOUT_MS: '250000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream! }).on('line', (l) => lines.push(l));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    let gone = false;
    void exited.then(() => {
      gone = true;
    });

    await waitFor(
      () => {
        if (gone) throw new Error(`./hireflow start exited:\n${lines.join('\n')}`);
        return lines.some((l) => l.startsWith('Hireflow is ready'));
      },
      { timeoutMs: 300_000, intervalMs: 250 },
    );
    const said = lines.join('\n');
    expect(said).toContain(`nothing answered on Postgres' 127.0.0.1:${pgPort}: started our own`);
    expect(said).toContain(`nothing answered on Redis' 127.0.0.1:${redisPort}: started our own`);
    // Under the instance's state dir (or, as root where the postgres user cannot reach the clone, the temp dir).
    const data = said.match(/started our own \(\S+, data in (\S+)\/pg\)/)?.[1];
    expect(data).toBeDefined();
    if (data !== join(root, stateDir, instance, 'postgres')) {
      expect(data).toMatch(/\/hireflow-postgres-[0-9a-f]{12}$/);
      ownDataOutside = data;
    }

    // Every service answers ready: its Postgres and Redis are the launcher's own.
    const { urls } = printedUrls(lines);
    expect(Object.keys(urls).sort()).toEqual(['jobs', 'matching', 'media', 'notifications']);
    for (const [service, url] of Object.entries(urls)) {
      await waitFor(
        async () => {
          const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(5000) }).catch(
            () => undefined,
          );
          if (!res) return false;
          const body = (await res.json()) as { status: string; checks: Record<string, string> };
          return res.status === 200 && body.checks.postgres === 'ok' && body.checks.redis === 'ok';
        },
        { timeoutMs: 60_000, intervalMs: 500, message: `${service} ready` },
      );
    }

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const after = lines.join('\n');
    expect(after).toContain('stopping our own postgres and redis');
    expect(await answers(pgPort)).toBe(false);
    expect(await answers(redisPort)).toBe(false);
  }, 420_000);
});
