import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m'];
const RESET = '\x1b[0m';
const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

export interface Child {
  name: string;
  process: ChildProcess;
  /** Resolves with the ports the service bound (it reports them over IPC). */
  started: Promise<{ port: number; adminPort: number }>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Signals the child's process group (the child and anything it started), if it still runs. */
  kill(signal: NodeJS.Signals): void;
}

/** The children of this process still running: killed when it exits, however it exits. */
const running = new Set<ChildProcess>();

/** Signals a child's process group (a detached child leads one), else the child alone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Gone already.
    }
  }
}

// A launcher that exits (its stop, a failed start's process.exit, an uncaught
// error) takes every child still running with it, one that is still starting
// included. A launcher SIGKILLed runs no code: its children see their IPC
// channel close and stop themselves (@hireflow/runtime/parent).
process.on('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL');
});

/** A compact line from a pino JSON log line; other lines pass through. */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const { level, time, msg, service: _service, pid: _pid, hostname: _host, ...rest } = JSON.parse(line);
    const when = new Date(time ?? Date.now()).toISOString().slice(11, 23);
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    return `${when} ${(LEVELS[level] ?? String(level)).padEnd(5)} ${msg ?? ''}${extra}`;
  } catch {
    return line;
  }
}

/** Spawns a Node process whose output is prefixed with its coloured name. */
export function spawnService(options: {
  name: string;
  index: number;
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  color: boolean;
  write: (line: string) => void;
}): Child {
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // Its own process group: a terminal's Ctrl-C reaches only the launcher,
    // which then stops each service once, in order. Should the launcher die,
    // the service sees its IPC channel close and shuts itself down.
    detached: true,
  });
  const color = options.color ? COLORS[options.index % COLORS.length]! : '';
  const prefix = `${color}${options.name.padEnd(13)}|${options.color ? RESET : ''} `;
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => options.write(prefix + formatLogLine(line)));
  }
  running.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  const started = new Promise<{ port: number; adminPort: number }>((resolve, reject) => {
    child.on('message', (message: { type?: string; port?: number; adminPort?: number }) => {
      if (message?.type === 'started' && typeof message.port === 'number') {
        resolve({ port: message.port, adminPort: message.adminPort ?? 0 });
      }
    });
    exited.then(({ code, signal }) =>
      reject(new Error(`${options.name} exited during start (code ${code}, signal ${signal})`)),
    );
  });
  started.catch(() => undefined);
  return {
    name: options.name,
    process: child,
    started,
    exited,
    kill: (signal) => signalGroup(child, signal),
  };
}

/** Polls `url` until it answers 2xx or the deadline passes. */
export async function waitForReady(url: string, deadline: number): Promise<void> {
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} not ready: ${last}`);
}
