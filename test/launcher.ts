import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { SERVICE_NAMES, type ServiceName } from '@hireflow/contracts';
import { FREE_PORTS } from '@hireflow/testing';
import pg from 'pg';

export const root = resolve(import.meta.dirname, '..');

export type Launcher = ReturnType<typeof launch>;

/**
 * `pnpm start` (the launcher) with names, ports and state of its own, so a
 * test passes while a developer's `pnpm start` runs on the default ports.
 */
export function launch(
  instance: string,
  stateDir: string,
  extraEnv: Record<string, string> = {},
  /** `pnpm start`'s flags (`--prometheus`). */
  args: string[] = [],
) {
  const child = spawn(process.execPath, [join(root, 'tools/launcher/src/cli/start.ts'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      HIREFLOW_INSTANCE: instance,
      HIREFLOW_STATE_DIR: stateDir,
      ...FREE_PORTS,
      LOG_LEVEL: 'info',
      // One process per service: tests run side by side on two cores. The
      // boot test runs the default (worker pools) itself.
      HIREFLOW_SCALING: 'off',
      // Test files start systems side by side on two cores: a slow start is not a failed one.
      HIREFLOW_READY_TIMEOUT_MS: '100000',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { test: (line: string) => boolean; resolve: () => void }[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  }
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const waitForLine = (test: (line: string) => boolean, timeoutMs: number) =>
    new Promise<void>((res, rej) => {
      if (lines.some(test)) return res();
      const timer = setTimeout(
        () => rej(new Error(`no such line within ${timeoutMs} ms:\n${lines.join('\n')}`)),
        timeoutMs,
      );
      waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          res();
        },
      });
      exited.then((code) => rej(new Error(`launcher exited with ${code}:\n${lines.join('\n')}`)));
    });
  return { child, lines, exited, waitForLine };
}

/** The public API's one base URL, the service and admin URLs, the mail catcher's and the trace viewer's pages, as the launcher printed them. */
/**
 * The header the instance's admin ports want: the token `pnpm start` generated
 * into its secrets file (docs/security.md, API8).
 */
export async function adminAuth(instance: string, stateDir: string): Promise<{ authorization: string }> {
  const { ADMIN_TOKEN } = JSON.parse(
    await readFile(join(root, stateDir, instance, 'secrets.json'), 'utf8'),
  ) as {
    ADMIN_TOKEN: string;
  };
  return { authorization: `Bearer ${ADMIN_TOKEN}` };
}

export function printedUrls(lines: string[]) {
  const services = SERVICE_NAMES.join('|');
  const pick = (pattern: RegExp) =>
    Object.fromEntries(
      lines
        .map((l) => l.match(pattern))
        .filter((m): m is RegExpMatchArray => m !== null)
        .map((m) => [m[1], m[2]]),
    ) as Record<ServiceName, string>;
  return {
    api: lines.map((l) => l.match(/^ {2}api\s+(http:\/\/127\.0\.0\.1:\d+)\s/)).find(Boolean)?.[1],
    urls: pick(new RegExp(`^ {2}(${services})\\s+(http://127\\.0\\.0\\.1:\\d+)\\s`)),
    adminUrls: pick(new RegExp(`^ {2}(${services})\\s.*\\sadmin (http://127\\.0\\.0\\.1:\\d+)$`)),
    mailUi: lines.map((l) => l.match(/^ {2}mail\s+(http:\/\/\S+)/)).find(Boolean)?.[1],
    /** The local webhook receiver. */
    webhooks: lines.map((l) => l.match(/^ {2}webhooks\s+(http:\/\/\S+)/)).find(Boolean)?.[1],
    /** The local trace viewer, when the launcher runs one. */
    traces: lines.map((l) => l.match(/^ {2}traces\s+(http:\/\/\S+)/)).find(Boolean)?.[1],
  };
}

/** Kills a launcher still running, drops its databases and removes its state dir. */
export async function cleanUp(launcher: Launcher | undefined, instance: string, stateDir: string) {
  if (launcher && launcher.child.exitCode === null) {
    launcher.child.kill('SIGKILL');
    await launcher.exited;
  }
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  for (const service of SERVICE_NAMES) {
    await client.query(`DROP DATABASE IF EXISTS hireflow_${instance}_${service} WITH (FORCE)`);
  }
  await client.end();
  await rm(join(root, stateDir), { recursive: true, force: true });
}
