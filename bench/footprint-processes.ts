// The processes `pnpm bench footprint` measures, one at a time: spawned,
// timed until they say they are ready (the IPC `started` message a service
// sends once it listens, as the launcher waits for it), left idle, their
// resident memory read from /proc, then stopped.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { SERVICE_NODE_FLAGS, serviceNodeArgs, serviceProcessEnv } from '@hireflow/runtime/process';

export const root = resolve(import.meta.dirname, '..');
const register = join(root, 'libs/telemetry/src/register.ts');
const READY_TIMEOUT_MS = Number(process.env.FOOTPRINT_READY_TIMEOUT_MS ?? 120_000);
const STOP_TIMEOUT_MS = 20_000;

/** What to spawn: node's arguments (run from the repository's root) and the environment's additions. */
/**
 * A service process's environment for the footprint benches: the emulator's
 * AWS with dummy credentials (never the metadata address), the trace sink,
 * its own database and Redis prefix, and an SMTP address nothing answers on
 * (nothing is sent while idle).
 */
export function benchServiceEnv(options: {
  service: string;
  region: string;
  emulator: string;
  otlp: string;
  database: string;
  redisPrefix: string;
  topologyPrefix: string;
}): Record<string, string> {
  return {
    OTEL_SERVICE_NAME: options.service,
    OTEL_EXPORTER_OTLP_ENDPOINT: options.otlp,
    DATABASE_URL: options.database,
    REDIS_PREFIX: options.redisPrefix,
    AWS_REGION: options.region,
    AWS_ENDPOINT_URL: options.emulator,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_EC2_METADATA_DISABLED: 'true',
    HIREFLOW_TOPOLOGY_PREFIX: options.topologyPrefix,
    SMTP_URL: 'smtp://127.0.0.1:9',
    PORT: '0',
    ADMIN_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
}

export interface ProcessKind {
  name: string;
  args: string[];
  env?: Record<string, string>;
}

export interface Measure {
  /** Resident set size after `idleMs` of idling once ready, in MB (10^6 bytes). */
  rssMb: number;
  /** From spawn to the `started` message, in ms. */
  readyMs: number;
  /**
   * CPU time (user + system, all threads) the process used from spawn to
   * ready, in ms: the work of a start, which a loaded machine stretches in
   * wall-clock time but not in CPU time.
   */
  readyCpuMs: number;
  /** A service's own account of its start (the `started` message's `startMs`: imports, connect, worker, servers, listen). */
  startMs?: Record<string, number>;
  /** RSS after each load phase and `idleMs` more, in MB, and the CPU time the phase took, in the order given. */
  phases: { name: string; rssMb: number; cpuMs: number }[];
}

/** Work given to a ready process (requests, events), after which its RSS is read again. */
export interface LoadPhase {
  name: string;
  run(process: { port: number }): Promise<void>;
}

/** After its imports, a plain process says it is ready as a service does, then idles until stopped. */
const readyThenIdle = "process.send({ type: 'started' }); setInterval(() => {}, 1 << 30);";

/**
 * A bare Node process: nothing imported but node:http, ready once it listens
 * (spawn → listening, the floor of any service's start on this machine now).
 */
export const bare: ProcessKind = {
  name: 'bare node, listening',
  args: [
    '--input-type=module',
    '-e',
    `import { createServer } from 'node:http'; createServer().listen(0, '127.0.0.1', () => { ${readyThenIdle} });`,
  ],
};

/** The baseline of issue 31: a process importing fastify, pg and ioredis (the root's own dependencies). */
export const baseline: ProcessKind = {
  name: 'fastify+pg+ioredis',
  args: ['--input-type=module', '-e', `import 'fastify'; import 'pg'; import 'ioredis'; ${readyThenIdle}`],
};

/** The telemetry preload alone, as every service process has it (same flags, same compile cache). */
export const preload: ProcessKind = {
  name: 'telemetry preload',
  args: [...SERVICE_NODE_FLAGS, '--import', register, '--input-type=module', '-e', readyThenIdle],
  env: serviceProcessEnv(root),
};

/** A service's process in a role, with the preload, as the launcher and the image run it. */
export function serviceProcess(
  service: string,
  role: 'api' | 'worker',
  env: Record<string, string>,
): ProcessKind {
  return {
    name: `${service} ${role}`,
    args: serviceNodeArgs(root, service),
    env: { ...serviceProcessEnv(root), ...env, ROLE: role },
  };
}

/** A spawned process, ready: its pid, the port it listens on (0 if it said none), its start. */
export interface Started {
  pid: number;
  port: number;
  /** From spawn to the `started` message, in ms. */
  readyMs: number;
  startMs?: Record<string, number>;
  /** SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once it exited. */
  stop(): Promise<void>;
}

/** Spawns one process and waits for its `started` message (it is stopped if it never comes). */
export async function startProcess(kind: ProcessKind): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, kind.args, {
    cwd: root,
    env: { ...process.env, ...kind.env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | string | null>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal)),
  );
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    let port = 0;
    let startMs: Record<string, number> | undefined;
    const readyMs = await new Promise<number>((ready, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`${kind.name}: not ready in ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      child.on('message', (message: { type?: string; port?: number; startMs?: Record<string, number> }) => {
        if (message?.type !== 'started') return;
        port = message.port ?? 0;
        startMs = message.startMs;
        clearTimeout(timer);
        ready(performance.now() - started);
      });
      exited.then((code) => {
        clearTimeout(timer);
        fail(new Error(`${kind.name} exited (${code}) before it was ready:\n${stderr}`));
      });
    });
    return { pid: child.pid!, port, readyMs, ...(startMs ? { startMs } : {}), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Spawns one process, waits until it is ready and `idleMs` more, reads its
 * RSS; then runs each phase, waits `idleMs` and reads it again; stops it.
 */
export async function measure(kind: ProcessKind, idleMs: number, load: LoadPhase[] = []): Promise<Measure> {
  const child = await startProcess(kind);
  try {
    const readyCpuMs = await cpuMs(child.pid);
    // An idle process: what it holds once started, not the garbage of starting (the same wait for every kind).
    await delay(idleMs);
    const idle = await rssMb(child.pid);
    const phases: Measure['phases'] = [];
    for (const phase of load) {
      const before = await cpuMs(child.pid);
      await phase.run({ port: child.port });
      const cpu = (await cpuMs(child.pid)) - before;
      await delay(idleMs);
      phases.push({ name: phase.name, rssMb: await rssMb(child.pid), cpuMs: cpu });
    }
    const { readyMs, startMs } = child;
    return { rssMb: idle, readyMs, readyCpuMs, ...(startMs ? { startMs } : {}), phases };
  } finally {
    await child.stop();
  }
}

/** User + system CPU time of the process, all its threads, from /proc/<pid>/stat (Linux), in ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // In clock ticks: USER_HZ, 100 on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** VmRSS from /proc/<pid>/status (Linux), in bytes. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

/** VmRSS from /proc/<pid>/status (Linux), in MB. */
async function rssMb(pid: number): Promise<number> {
  return (await rssBytes(pid)) / 1e6;
}
