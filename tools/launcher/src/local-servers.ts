// Postgres and Redis of the repository's own, from the machine's binaries
// (Debian's postgresql and redis-server packages): what `pnpm start` and
// `./hireflow test` run when nothing answers on the configured address, and
// the building blocks of the chaos harness's servers (tools/chaos/src/processes.ts).
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How to install a missing server (Debian/Ubuntu). */
const installHint = (pkg: 'postgresql' | 'redis-server') =>
  `apt-get install ${pkg}   (Debian/Ubuntu; with sudo unless root)`;

/** Postgres' server binaries: HIREFLOW_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin that has initdb. */
export async function postgresBinDir(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const configured = env.HIREFLOW_PG_BIN ?? env.CHAOS_PG_BIN;
  if (configured) return existsSync(join(configured, 'initdb')) ? configured : undefined;
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  return versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => `/usr/lib/postgresql/${v}/bin`)
    .find((bin) => existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres')));
}

/** redis-server on PATH (Debian puts it in /usr/bin), or undefined. */
export function redisServerBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(':').filter(Boolean), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  return dirs.map((d) => join(d, 'redis-server')).find((file) => existsSync(file));
}

const isRoot = () => process.getuid?.() === 0;

/** Postgres refuses to run as root: as root, run its binaries as the `postgres` user. */
export function asPostgres(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Resolves once `probe` says yes, or throws after `timeoutMs` (polls every 100 ms). */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
}

/** Whether anything accepts a TCP connection on host:port (a refused or timed-out connect: no). */
export function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * A Postgres data directory in `dir/pg`: initdb once (trust auth, user
 * postgres), kept across starts. As root, `dir` and the data belong to the
 * `postgres` user, which must be able to reach `dir`.
 */
export async function initPostgres(dir: string, bin: string): Promise<string> {
  const data = join(dir, 'pg');
  await mkdir(data, { recursive: true });
  if (isRoot()) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
    await chown(data, Number(uid.trim()), Number(gid.trim()));
  }
  if (existsSync(join(data, 'PG_VERSION'))) return data;
  const [initdb, initArgs] = asPostgres(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  await run(initdb, initArgs, { cwd: dir });
  return data;
}

/** The command line of a Postgres on 127.0.0.1:`port` over `data` (its socket in `socketDir`). */
export function postgresCommand(
  bin: string,
  options: { data: string; socketDir: string; port: number; settings?: Record<string, string> },
): [string, string[]] {
  const settings = { listen_addresses: '127.0.0.1', ...options.settings };
  return asPostgres(join(bin, 'postgres'), [
    '-D',
    options.data,
    '-p',
    String(options.port),
    '-k',
    options.socketDir,
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ]);
}

/** The postmaster's pid (the process to signal; under runuser it is not the spawned one). */
export async function postmasterPid(data: string): Promise<number | undefined> {
  const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export async function postgresReady(bin: string, port: number): Promise<boolean> {
  const [command, args] = asPostgres(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]);
  await run(command, args);
  return true;
}

/** The arguments of a redis-server on 127.0.0.1:`port` with its files in `data`. */
export function redisArgs(options: {
  port: number;
  data: string;
  appendfsync: 'always' | 'everysec';
}): string[] {
  return [
    '--port',
    String(options.port),
    '--bind',
    '127.0.0.1',
    '--dir',
    options.data,
    '--appendonly',
    'yes',
    '--appendfsync',
    options.appendfsync,
    '--save',
    '',
    // BullMQ's requirement: a full Redis refuses writes instead of dropping jobs.
    '--maxmemory-policy',
    'noeviction',
  ];
}

export async function redisReady(port: number): Promise<boolean> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping']);
  return stdout.trim() === 'PONG';
}

/** A server of the repository's own, started by `startLocalServers`. */
export interface LocalServer {
  readonly name: 'postgres' | 'redis';
  readonly port: number;
  /** Where its files are. */
  readonly dir: string;
  /** A clean stop (Postgres: fast shutdown; Redis: SIGTERM), resolved once it exited. */
  stop(): Promise<void>;
}

export interface LocalServers {
  /** The servers started here (none when both answered already). */
  started: LocalServer[];
  /** Lines for the user: what was started, or how to install what is missing. */
  notes: string[];
  /** Stops what was started, Redis and Postgres together. */
  stop(): Promise<void>;
}

function loopbackAddress(url: string, fallbackPort: number): { host: string; port: number } | undefined {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) return undefined;
  return { host: host === 'localhost' ? '127.0.0.1' : host, port: Number(parsed.port || fallbackPort) };
}

/**
 * Runs the process through the launcher's tether (prometheus/tether.ts): it
 * stops with the launcher however the launcher ends (even SIGKILL), with
 * `signal` sent to the server itself (`pidFile`: the postmaster, not runuser).
 */
function tethered(command: string, args: string[], signal: NodeJS.Signals, pidFile?: string): ChildProcess {
  const tether = join(import.meta.dirname, 'prometheus/tether.ts');
  const flags = [`--signal=${signal}`, ...(pidFile ? [`--pid-file=${pidFile}`] : [])];
  return spawn(process.execPath, [tether, ...flags, command, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // A process group of its own: a terminal's Ctrl-C reaches the launcher,
    // which stops the services first and the servers after them.
    detached: true,
  });
}

async function startTethered(options: {
  name: 'postgres' | 'redis';
  port: number;
  dir: string;
  command: string;
  args: string[];
  signal: NodeJS.Signals;
  pidFile?: string;
  ready: () => Promise<boolean>;
  timeoutMs: number;
}): Promise<LocalServer> {
  const child = tethered(options.command, options.args, options.signal, options.pidFile);
  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      tail.push(chunk.toString());
      if (tail.length > 30) tail.shift();
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntil(
      `${options.name} on 127.0.0.1:${options.port}`,
      async () => {
        if (gone) throw new Error('exited');
        return options.ready();
      },
      options.timeoutMs,
    );
  } catch (error) {
    await stop();
    throw new Error(
      `${(error as Error).message}${gone ? ' (it exited)' : ''}:\n${tail.join('').slice(-2000)}`,
    );
  }
  child.unref();
  child.channel?.unref();
  return { name: options.name, port: options.port, dir: options.dir, stop };
}

/**
 * For each of Postgres and Redis whose configured address is on this machine
 * and where nothing answers: when its binaries are installed, start one of
 * our own on exactly that address with its files under `stateDir`, so every
 * setting that names the address stays true; when they are not, say how to
 * install them. An address that answers is left alone.
 */
export async function startLocalServers(options: {
  postgresUrl: string;
  redisUrl: string;
  stateDir: string;
  env?: NodeJS.ProcessEnv;
  /** Postgres settings beyond the defaults (a test run: fsync=off). */
  postgresSettings?: Record<string, string>;
  timeoutMs?: number;
}): Promise<LocalServers> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started: LocalServer[] = [];
  const notes: string[] = [];
  const stop = async () => {
    await Promise.all(started.map((s) => s.stop()));
  };
  try {
    const pgAddress = loopbackAddress(options.postgresUrl, 5432);
    if (pgAddress && !(await answers(pgAddress.host, pgAddress.port))) {
      const bin = await postgresBinDir(env);
      if (!bin) {
        notes.push(
          `nothing answers on Postgres' ${pgAddress.host}:${pgAddress.port} and no Postgres is installed: ${installHint('postgresql')}`,
        );
      } else {
        await mkdir(options.stateDir, { recursive: true });
        // As root, the data belongs to the postgres user; where it cannot reach
        // the repository (a clone under /root), the data goes to the temp dir.
        const dir = postgresCanReach(options.stateDir)
          ? join(options.stateDir, 'postgres')
          : join(
              tmpdir(),
              `hireflow-postgres-${createHash('sha256').update(options.stateDir).digest('hex').slice(0, 12)}`,
            );
        await mkdir(dir, { recursive: true });
        const data = await initPostgres(dir, bin);
        const [command, args] = postgresCommand(bin, {
          data,
          socketDir: dir,
          port: pgAddress.port,
          settings: { max_connections: '200', ...options.postgresSettings },
        });
        started.push(
          await startTethered({
            name: 'postgres',
            port: pgAddress.port,
            dir,
            command,
            args,
            // SIGINT: Postgres' fast shutdown (SIGTERM would wait for every session to end).
            signal: 'SIGINT',
            pidFile: join(data, 'postmaster.pid'),
            ready: () => postgresReady(bin, pgAddress.port),
            timeoutMs,
          }),
        );
        notes.push(
          `nothing answered on Postgres' 127.0.0.1:${pgAddress.port}: started our own (${bin}/postgres, data in ${data}); it stops with this command`,
        );
      }
    }
    const redisAddress = loopbackAddress(options.redisUrl, 6379);
    if (redisAddress && !(await answers(redisAddress.host, redisAddress.port))) {
      const bin = redisServerBinary(env);
      if (!bin) {
        notes.push(
          `nothing answers on Redis' ${redisAddress.host}:${redisAddress.port} and no redis-server is installed: ${installHint('redis-server')}`,
        );
      } else {
        const dir = join(options.stateDir, 'redis');
        await mkdir(dir, { recursive: true });
        started.push(
          await startTethered({
            name: 'redis',
            port: redisAddress.port,
            dir,
            command: bin,
            args: redisArgs({ port: redisAddress.port, data: dir, appendfsync: 'everysec' }),
            signal: 'SIGTERM',
            ready: () => redisReady(redisAddress.port),
            timeoutMs,
          }),
        );
        notes.push(
          `nothing answered on Redis' 127.0.0.1:${redisAddress.port}: started our own (${bin}, files in ${dir}); it stops with this command`,
        );
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { started, notes, stop };
}

/** Whether the `postgres` user can reach `dir` (as root: the own Postgres' data must live where it can). */
function postgresCanReach(dir: string): boolean {
  if (!isRoot()) return true;
  return spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).status === 0;
}
