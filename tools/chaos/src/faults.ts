import type { SmtpCatcher } from '@hireflow/testing/smtp';
import { now } from './clock.ts';
import type { OwnedServer } from './processes.ts';
import type { Random } from './random.ts';

export type FaultKind =
  | 'kill-worker'
  | 'term-worker'
  | 'pause-worker'
  | 'smtp-outage'
  | 'redis-restart'
  | 'postgres-cut'
  /** Postgres unreachable longer than a BullMQ task's whole retry budget (a failover). */
  | 'postgres-long-cut'
  /** The emulator (S3, SQS, SNS) unreachable as long: S3 for every resize. */
  | 'emulator-cut'
  /** Redis restarted with all its data gone (no AOF to replay): queues, locks, marks. */
  | 'redis-wipe'
  | 'postgres-restart'
  | 'emulator-pause'
  | 'network-delay';

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  start: number;
  end: number;
  detail: string;
}

export interface FaultTargets {
  postgres: OwnedServer;
  redis: OwnedServer;
  emulator: OwnedServer;
  smtp: SmtpCatcher;
  /** Removes every key of the soak's Redis (through its own port, not the proxy). */
  wipeRedis(): Promise<void>;
  /** Every service process by name (`jobs`, `notifications/3`): workers have a `/`. */
  pids(): Record<string, number>;
}

const WEIGHTS: Record<FaultKind, number> = {
  'kill-worker': 4,
  'term-worker': 2,
  'pause-worker': 2,
  'smtp-outage': 2,
  'redis-restart': 1,
  'postgres-cut': 2,
  'postgres-long-cut': 1,
  'emulator-cut': 1,
  'redis-wipe': 1,
  'postgres-restart': 1,
  'emulator-pause': 1,
  'network-delay': 2,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Injects a fault every `everyMs` (± half of it, drawn from the seed) until
 * `stop()`. A fault whose target is still under an earlier fault is skipped
 * for another kind, so each fault's bands in the report are its own.
 */
export function startFaults(options: {
  random: Random;
  everyMs: number;
  targets: FaultTargets;
  /** The longest SIGSTOP of a worker: above the leases (email 15 s, BullMQ lock 30 s) to force takeovers. */
  pauseMs: [number, number];
  /** How long a long cut (Postgres, the emulator) lasts: above the BullMQ retry budget (default 90–150 s). */
  longCutMs?: [number, number];
  log: (line: string) => void;
  kinds?: FaultKind[];
}) {
  const { random, targets } = options;
  const records: FaultRecord[] = [];
  const busy = new Set<string>();
  const running = new Set<Promise<void>>();
  let stopped = false;
  // A fault's own waits end early at stop(): a drain never waits out a pause.
  const cutShort = new Set<() => void>();
  const hold = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        cutShort.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      cutShort.add(done);
      if (stopped) done();
    });
  const weights = Object.fromEntries(
    Object.entries(WEIGHTS).filter(([kind]) => !options.kinds || options.kinds.includes(kind as FaultKind)),
  ) as Record<FaultKind, number>;

  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone (its pool replaced it): nothing to resume.
    }
  };

  const inject = async (kind: FaultKind): Promise<FaultRecord | undefined> => {
    const workers = Object.entries(targets.pids()).filter(([name]) => name.includes('/'));
    const start = now();
    const record = (target: string, detail: string): FaultRecord => ({
      kind,
      target,
      start,
      end: start,
      detail,
    });
    switch (kind) {
      case 'kill-worker':
      case 'term-worker':
      case 'pause-worker': {
        const free = workers.filter(([name]) => !busy.has(name));
        if (free.length === 0) return undefined;
        const [name, pid] = random.pick(free);
        if (kind === 'kill-worker') {
          signal(pid, 'SIGKILL');
          return record(name, `SIGKILL pid ${pid}`);
        }
        if (kind === 'term-worker') {
          signal(pid, 'SIGTERM');
          return record(name, `SIGTERM pid ${pid}`);
        }
        const ms = random.int(...options.pauseMs);
        busy.add(name);
        signal(pid, 'SIGSTOP');
        await hold(ms);
        signal(pid, 'SIGCONT');
        busy.delete(name);
        return { ...record(name, `SIGSTOP pid ${pid} for ${(ms / 1000).toFixed(1)} s`), end: now() };
      }
      case 'smtp-outage': {
        if (busy.has('smtp')) return undefined;
        busy.add('smtp');
        const refuse = random.int(1500, 5000);
        const tempfail = random.int(1500, 5000);
        await targets.smtp.stop();
        await hold(refuse);
        targets.smtp.mode = 'tempfail';
        await targets.smtp.restart();
        await hold(tempfail);
        targets.smtp.mode = 'accept';
        busy.delete('smtp');
        return {
          ...record(
            'smtp',
            `refused ${(refuse / 1000).toFixed(1)} s, then 4xx ${(tempfail / 1000).toFixed(1)} s`,
          ),
          end: now(),
        };
      }
      case 'redis-restart':
      case 'postgres-restart': {
        const server = kind === 'redis-restart' ? targets.redis : targets.postgres;
        if (busy.has(server.name)) return undefined;
        busy.add(server.name);
        const crash = random.chance(0.5);
        const downMs = random.int(200, 2000);
        await (crash ? server.kill() : server.stop());
        await hold(downMs);
        await server.start();
        busy.delete(server.name);
        return {
          ...record(server.name, `${crash ? 'killed' : 'stopped'}, restarted after ${downMs} ms`),
          end: now(),
        };
      }
      case 'postgres-cut': {
        if (busy.has('postgres')) return undefined;
        busy.add('postgres');
        const ms = random.int(500, 3000);
        targets.postgres.proxy.cut();
        await hold(ms);
        targets.postgres.proxy.restore();
        busy.delete('postgres');
        return { ...record('postgres', `connections reset for ${ms} ms`), end: now() };
      }
      case 'postgres-long-cut':
      case 'emulator-cut': {
        const server = kind === 'postgres-long-cut' ? targets.postgres : targets.emulator;
        if (busy.has(server.name)) return undefined;
        busy.add(server.name);
        const ms = random.int(...(options.longCutMs ?? [90_000, 150_000]));
        server.proxy.cut();
        await hold(ms);
        server.proxy.restore();
        busy.delete(server.name);
        return { ...record(server.name, `unreachable for ${(ms / 1000).toFixed(1)} s`), end: now() };
      }
      case 'redis-wipe': {
        if (busy.has('redis')) return undefined;
        busy.add('redis');
        const downMs = random.int(200, 2000);
        // FLUSHALL reaches the AOF, so the restart comes back empty, as a Redis without persistence would.
        await targets.wipeRedis();
        await targets.redis.kill();
        await hold(downMs);
        await targets.redis.start();
        busy.delete('redis');
        return { ...record('redis', `all data lost, restarted after ${downMs} ms`), end: now() };
      }
      case 'emulator-pause': {
        if (busy.has('emulator')) return undefined;
        busy.add('emulator');
        const ms = random.int(2000, 10_000);
        targets.emulator.pause();
        await hold(ms);
        targets.emulator.resume();
        busy.delete('emulator');
        return { ...record('emulator', `SIGSTOP for ${(ms / 1000).toFixed(1)} s`), end: now() };
      }
      case 'network-delay': {
        const server = random.pick([targets.postgres, targets.redis, targets.emulator]);
        if (busy.has(server.name)) return undefined;
        busy.add(server.name);
        const delay = random.int(20, 300);
        const ms = random.int(2000, 6000);
        server.proxy.delayMs = delay;
        await hold(ms);
        server.proxy.delayMs = 0;
        busy.delete(server.name);
        return {
          ...record(server.name, `+${delay} ms each way for ${(ms / 1000).toFixed(1)} s`),
          end: now(),
        };
      }
    }
  };

  const loop = (async () => {
    for (let round = 0; round < 100_000 && !stopped; round++) {
      await hold(options.everyMs * (0.5 + random.next()));
      if (stopped) break;
      // A few draws at most: every target may be busy.
      for (let draw = 0; draw < 5; draw++) {
        const kind = random.weighted(weights);
        const started = inject(kind).then(
          (fault) => {
            if (!fault) return false;
            records.push(fault);
            options.log(`fault: ${fault.kind} ${fault.target}: ${fault.detail}`);
            return true;
          },
          (error: Error) => {
            options.log(`fault ${kind} failed: ${error.message}`);
            return true;
          },
        );
        const job = started.then(() => undefined);
        running.add(job);
        void job.then(() => running.delete(job));
        // Instant faults settle at once; for a long one, knowing it started is enough.
        const outcome = await Promise.race([started, sleep(50).then(() => true)]);
        if (outcome) break;
      }
    }
  })();

  return {
    records,
    /** Stops drawing and waits for the faults under way to end (every paused process resumed). */
    async stop() {
      stopped = true;
      for (const done of [...cutShort]) done();
      await loop;
      await Promise.all(running);
      targets.smtp.mode = 'accept';
    },
  };
}
