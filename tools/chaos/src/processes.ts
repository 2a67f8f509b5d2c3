import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  initPostgres,
  postgresBinDir,
  postgresCommand,
  postgresReady,
  postmasterPid,
  redisArgs,
  redisReady,
  waitUntil,
} from '@hireflow/launcher/local-servers';
import { freePort, startTcpProxy, type TcpProxy } from '@hireflow/testing';

/** A server the harness owns: it can kill, pause and restart it; clients reach it through a fault proxy. */
export interface OwnedServer {
  readonly name: string;
  /** The real server's port (the harness's own reads bypass the proxy). */
  readonly port: number;
  /** What the services connect to. */
  readonly proxy: TcpProxy;
  readonly pid: number | undefined;
  /** Crash: SIGKILL (Postgres: SIGQUIT, its immediate shutdown), wait for the exit. */
  kill(): Promise<void>;
  /** A clean stop (SIGTERM / Postgres fast shutdown), wait for the exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it answers. */
  start(): Promise<void>;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a server on a free port behind a fault proxy of its own. */
async function startOwnedServer(options: {
  name: string;
  spawnIt: (port: number) => ChildProcess;
  ready: (port: number) => Promise<boolean>;
  killSignal: NodeJS.Signals;
  stopSignal: NodeJS.Signals;
  log: (line: string) => void;
  /** The pid to signal when it is not the spawned one (Postgres under runuser: the postmaster). */
  serverPid?: () => Promise<number | undefined>;
}): Promise<OwnedServer> {
  const port = await freePort();
  const proxy = await startTcpProxy({ port });
  let child: ChildProcess | undefined;
  let serverPid: number | undefined;
  const send = (signal: NodeJS.Signals) => {
    const pid = serverPid ?? child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  };
  const signalAndWait = async (signal: NodeJS.Signals) => {
    const current = child;
    if (!current) return;
    send('SIGCONT');
    send(signal);
    const timer = setTimeout(() => {
      send('SIGKILL');
      current.kill('SIGKILL');
    }, 20_000);
    await exitOf(current);
    clearTimeout(timer);
    child = undefined;
    serverPid = undefined;
  };
  const server: OwnedServer = {
    name: options.name,
    port,
    proxy,
    get pid() {
      return child?.pid;
    },
    kill: () => signalAndWait(options.killSignal),
    stop: () => signalAndWait(options.stopSignal),
    async start() {
      const spawned = options.spawnIt(port);
      child = spawned;
      const tail: string[] = [];
      for (const stream of [spawned.stdout, spawned.stderr]) {
        stream?.on('data', (chunk: Buffer) => {
          tail.push(chunk.toString());
          if (tail.length > 20) tail.shift();
        });
      }
      spawned.once('exit', (code, signal) => {
        if (child === spawned) options.log(`${options.name} exited (code ${code}, signal ${signal})`);
      });
      try {
        await waitUntil(options.name, () => options.ready(port), 30_000);
      } catch (error) {
        throw new Error(`${(error as Error).message}: ${tail.join('').slice(-2000)}`);
      }
      serverPid = await options.serverPid?.();
    },
    pause: () => send('SIGSTOP'),
    resume: () => send('SIGCONT'),
    async close() {
      await signalAndWait(options.stopSignal);
      await proxy.close();
    },
  };
  await server.start();
  return server;
}

/** A Postgres of the run's own: initdb in `dir`, trust auth, loopback, on a free port. */
export async function startOwnedPostgres(dir: string, log: (line: string) => void): Promise<OwnedServer> {
  const bin = await postgresBinDir();
  if (!bin)
    throw new Error(
      'no Postgres binaries (initdb) under /usr/lib/postgresql/*/bin: apt-get install postgresql',
    );
  const data = await initPostgres(dir, bin);
  return startOwnedServer({
    name: 'postgres',
    log,
    // SIGQUIT is Postgres's immediate shutdown: a crash, with recovery at the next start.
    killSignal: 'SIGQUIT',
    stopSignal: 'SIGINT',
    spawnIt: (port) => {
      const [command, args] = postgresCommand(bin, {
        data,
        socketDir: dir,
        port,
        settings: {
          max_connections: '400',
          // A process crash keeps the page cache: fsync guards against power loss, not what this run injects.
          fsync: 'off',
          shared_buffers: '64MB',
        },
      });
      return spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    },
    serverPid: () => postmasterPid(data),
    ready: (port) => postgresReady(bin, port),
  });
}

/** A Redis of the run's own, with an fsynced append-only file: a kill loses nothing it acknowledged. */
export async function startOwnedRedis(dir: string, log: (line: string) => void): Promise<OwnedServer> {
  const data = join(dir, 'redis');
  await mkdir(data, { recursive: true });
  return startOwnedServer({
    name: 'redis',
    log,
    killSignal: 'SIGKILL',
    stopSignal: 'SIGTERM',
    spawnIt: (port) =>
      spawn('redis-server', redisArgs({ port, data, appendfsync: 'always' }), {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ready: (port) => redisReady(port),
  });
}

/** The SNS/SQS/S3 emulator as a process of its own (state in memory: it is paused, never killed). */
export async function startOwnedEmulator(region: string, log: (line: string) => void): Promise<OwnedServer> {
  return startOwnedServer({
    name: 'emulator',
    log,
    killSignal: 'SIGKILL',
    stopSignal: 'SIGTERM',
    spawnIt: (port) =>
      spawn(process.execPath, [fileURLToPath(import.meta.resolve('@hireflow/emulator/cli'))], {
        env: { ...process.env, EMULATOR_PORT: String(port), AWS_REGION: region },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ready: async (port) => {
      const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
      return res.status > 0;
    },
  });
}
