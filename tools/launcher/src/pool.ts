import { type Child, waitForReady } from './children.ts';

/**
 * A service's worker role as a pool of processes (`pnpm start` with
 * HIREFLOW_SCALING=on): the autoscaler sets its size; a worker that exits
 * without being asked to is replaced, so a crash costs its in-flight work a
 * visibility timeout or a stalled-job check, never the pool a member.
 */
export interface WorkerPool {
  readonly service: string;
  /** Workers running or starting. */
  readonly size: number;
  /** The admin listeners of the workers that have started (their /metrics). */
  adminUrls(): string[];
  /** Each running worker's pid, by name (`jobs/2`). */
  pids(): Record<string, number>;
  /** The workers that have started and are not retiring: name, pid, admin listener. */
  ready(): { name: string; pid: number; admin: string }[];
  /** Starts or stops workers until `size` run; the newest stop first (SIGTERM: they drain). */
  resize(size: number): Promise<void>;
  /** SIGTERM every worker and wait; the exit codes of those asked to stop. */
  stop(): Promise<{ name: string; code: number | null; signal: NodeJS.Signals | null }[]>;
}

interface Member {
  child: Child;
  admin?: string;
  retiring: boolean;
}

export function createWorkerPool(options: {
  service: string;
  /** Spawns one worker process named `name`. */
  spawn: (name: string) => Child;
  log: (line: string) => void;
  readyTimeoutMs: number;
  /** Told when a worker has started, begins to retire or exits (the Prometheus targets file). */
  onChange?: () => void;
}): WorkerPool {
  const changed = () => options.onChange?.();
  const members: Member[] = [];
  const finished: { name: string; code: number | null; signal: NodeJS.Signals | null }[] = [];
  let serial = 0;
  let stopping = false;

  const add = async (): Promise<void> => {
    serial += 1;
    const member: Member = { child: options.spawn(`${options.service}/${serial}`), retiring: false };
    members.push(member);
    member.child.exited.then(({ code, signal }) => {
      members.splice(members.indexOf(member), 1);
      changed();
      if (member.retiring || stopping) {
        finished.push({ name: member.child.name, code, signal });
        return;
      }
      // One that died starting is reported by its start (no respawn loop).
      if (!member.admin) return;
      options.log(`${member.child.name} exited unexpectedly (code ${code}, signal ${signal}): replacing it`);
      void add().catch((error: Error) =>
        options.log(`${options.service}: a worker did not start: ${error.message}`),
      );
    });
    const { port, adminPort } = await member.child.started;
    await waitForReady(`http://127.0.0.1:${port}/health/ready`, Date.now() + options.readyTimeoutMs);
    member.admin = `http://127.0.0.1:${adminPort}`;
    changed();
  };

  const retire = async (member: Member): Promise<void> => {
    member.retiring = true;
    changed();
    member.child.kill('SIGTERM');
    const timer = setTimeout(() => member.child.kill('SIGKILL'), 30_000);
    await member.child.exited;
    clearTimeout(timer);
  };

  return {
    service: options.service,
    get size() {
      return members.filter((m) => !m.retiring).length;
    },
    adminUrls: () => members.flatMap((m) => (m.admin && !m.retiring ? [m.admin] : [])),
    pids: () => Object.fromEntries(members.map((m) => [m.child.name, m.child.process.pid!])),
    ready: () =>
      members.flatMap((m) =>
        m.admin && !m.retiring ? [{ name: m.child.name, pid: m.child.process.pid!, admin: m.admin }] : [],
      ),
    async resize(size) {
      const active = members.filter((m) => !m.retiring);
      if (size > active.length) {
        await Promise.all(Array.from({ length: size - active.length }, () => add()));
      } else if (size < active.length) {
        await Promise.all(active.slice(size).map(retire));
      }
    },
    async stop() {
      stopping = true;
      await Promise.all(members.map(retire));
      return finished;
    },
  };
}
