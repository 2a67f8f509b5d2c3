import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConsumerName,
  SERVICE_NAMES,
  type ServiceName,
  SUBSCRIBER_NAMES,
  workerScaling,
} from '@hireflow/contracts';
import { serviceNodeArgs, serviceProcessEnv } from '@hireflow/runtime/process';
import { startAutoscaler } from './autoscaler.ts';
import { type Child, spawnService, waitForReady } from './children.ts';
import { capWorkers, LOCAL_POOL_MAX, postgresConnections } from './connections.ts';
import { createWorkerPool, type WorkerPool } from './pool.ts';
import { type RunningProcess, targetsWriter } from './prometheus/targets.ts';
import { scaleTime } from './scaling/decide.ts';
import type { LauncherSettings } from './settings.ts';

export interface RunningServices {
  urls: Record<string, string>;
  admin: Record<string, string>;
  /** Every service process's pid, by name (`jobs`, `jobs/1` …), as of now. */
  pids(): Record<string, number>;
  /** Prometheus file_sd targets of every running process, kept current (docs/operations.md). */
  targetsFile: string;
  /** Resolves when an API process (or a single all-role process) exits without being asked to. */
  unexpectedExit: Promise<string>;
  /** Stops the autoscaler, SIGTERMs every process, waits; 0 when each exited 0. */
  stop(): Promise<number>;
}

/**
 * The four services as processes, and the subscriber services of the
 * registry. With HIREFLOW_SCALING=on, each of the four runs
 * its API role in one process (the printed ports) and its worker role as a
 * pool the autoscaler sizes between the policy's bounds (docs/operations.md);
 * with off, one process per service runs both roles.
 */
export async function startServices(options: {
  settings: LauncherSettings;
  root: string;
  stateDir: string;
  /** A service's environment (its ports among them). */
  envOf: (service: ConsumerName) => Record<string, string | undefined>;
  write: (line: string) => void;
  color: boolean;
  readyTimeoutMs: number;
  /**
   * Respawn an API process that exits unexpectedly (`pnpm chaos`), and report
   * its new URLs; without it, such an exit resolves `unexpectedExit`.
   */
  onApiRestarted?: (service: string, url: string, adminUrl: string) => void;
}): Promise<RunningServices> {
  const { settings } = options;
  const log = (line: string) => options.write(`launcher      | ${line}`);
  const scaling = settings.HIREFLOW_SCALING === 'on';
  const spawnOf = (service: string, index: number, name: string, env: Record<string, string | undefined>) =>
    spawnService({
      name,
      index,
      args: serviceNodeArgs(options.root, service),
      env: { ...serviceProcessEnv(options.root), ...env },
      cwd: options.root,
      color: options.color,
      write: options.write,
    });

  const policies = Object.fromEntries(
    SERVICE_NAMES.map((s) => [s, scaleTime(workerScaling[s], settings.SCALING_TIME_SCALE)]),
  );
  // Pooled processes share the server's connections: smaller pools, maximums that fit.
  const pooled = scaling ? { DATABASE_POOL_MAX: String(LOCAL_POOL_MAX) } : {};
  if (scaling) {
    const connections = await postgresConnections(settings.POSTGRES_URL);
    const { maxWorkers, capped } = capWorkers(policies, connections);
    for (const s of SERVICE_NAMES) policies[s] = { ...policies[s]!, maxWorkers: maxWorkers[s]! };
    if (capped.length > 0) {
      log(
        `Postgres allows ${connections.max} connections (${connections.inUse} in use): at most ${capped.map((s) => `${maxWorkers[s]} ${s}`).join(', ')} workers; raise max_connections for the policy's full range`,
      );
    }
  }
  // Subscriber services (docs/subscribing.md) run after the four, one process
  // each with both roles: no scaling policy of theirs to pool workers by.
  const frontNames: ConsumerName[] = [...SERVICE_NAMES, ...SUBSCRIBER_NAMES];
  const isService = (name: ConsumerName): name is ServiceName =>
    (SERVICE_NAMES as readonly string[]).includes(name);
  const spawnFront = (service: ConsumerName, index: number) =>
    spawnOf(service, index, service, {
      ...options.envOf(service),
      ...(isService(service) ? pooled : {}),
      ROLE: scaling && isService(service) ? 'api' : 'all',
    });
  const front: Child[] = frontNames.map((service, index) => spawnFront(service, index));
  // Every process that answers, for Prometheus' file_sd (<state dir>/prometheus-targets.json).
  const frontAdmin = new Map<Child, string>();
  const processes = (): RunningProcess[] => [
    ...front.flatMap((child, index) => {
      const admin = frontAdmin.get(child);
      return admin
        ? [
            {
              name: child.name,
              service: frontNames[index]!,
              role: scaling ? ('api' as const) : ('all' as const),
              pid: child.process.pid!,
              admin,
            },
          ]
        : [];
    }),
    ...pools.flatMap((pool) =>
      pool.ready().map((w) => ({ ...w, service: pool.service, role: 'worker' as const })),
    ),
  ];
  await mkdir(options.stateDir, { recursive: true });
  const targets = targetsWriter(options.stateDir, processes);
  const pools: WorkerPool[] = scaling
    ? SERVICE_NAMES.map((service, index) =>
        createWorkerPool({
          service,
          log,
          readyTimeoutMs: options.readyTimeoutMs,
          onChange: () => void targets.publish(),
          spawn: (name) =>
            spawnOf(service, index, name, {
              ...options.envOf(service),
              ...pooled,
              ROLE: 'worker',
              PORT: '0',
              ADMIN_PORT: '0',
            }),
        }),
      )
    : [];
  let stopping = false;
  let autoscaler: { stop(): Promise<void> } | undefined;
  const stop = async (): Promise<number> => {
    stopping = true;
    await autoscaler?.stop();
    for (const child of front) child.kill('SIGTERM');
    const [exits, poolExits] = await Promise.all([
      Promise.all(
        front.map(async (child) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
          const result = await child.exited;
          clearTimeout(timer);
          return { name: child.name, ...result };
        }),
      ),
      Promise.all(pools.map((pool) => pool.stop())),
    ]);
    let code = 0;
    for (const exit of [...exits, ...poolExits.flat()]) {
      log(`${exit.name} exited with code ${exit.code}${exit.signal ? ` (signal ${exit.signal})` : ''}`);
      if (exit.code !== 0) code = 1;
    }
    return code;
  };

  try {
    const deadline = Date.now() + options.readyTimeoutMs;
    const urls: Record<string, string> = {};
    const admin: Record<string, string> = {};
    await Promise.all([
      ...front.map(async (child) => {
        const { port, adminPort } = await Promise.race([
          child.started,
          new Promise<never>((_, reject) =>
            setTimeout(
              () => reject(new Error(`${child.name} did not start in time`)),
              deadline - Date.now(),
            ).unref(),
          ),
        ]);
        const url = `http://127.0.0.1:${port}`;
        await waitForReady(`${url}/health/ready`, deadline);
        urls[child.name] = url;
        admin[child.name] = `http://127.0.0.1:${adminPort}`;
        frontAdmin.set(child, admin[child.name]!);
        void targets.publish();
      }),
      ...pools.map((pool) => pool.resize(policies[pool.service]!.minWorkers)),
    ]);
    if (scaling) {
      const recordTo = join(options.stateDir, 'scaling.jsonl');
      await mkdir(options.stateDir, { recursive: true });
      await writeFile(recordTo, '');
      // The bounds in force (the policy time-scaled, maximums capped to the connections): `pnpm burst` predicts with them.
      await writeFile(join(options.stateDir, 'scaling-policies.json'), `${JSON.stringify(policies)}\n`);
      autoscaler = startAutoscaler({
        pools,
        adminToken: options.envOf('jobs').ADMIN_TOKEN,
        apiAdmin: admin,
        policies,
        intervalMs: settings.SCALING_INTERVAL_MS,
        recordTo,
        log,
      });
      log(
        `worker pools: ${pools.map((p) => `${p.service} ${p.size} (${policies[p.service]!.minWorkers}–${policies[p.service]!.maxWorkers})`).join(', ')}; scaling every ${settings.SCALING_INTERVAL_MS} ms, record in ${recordTo}`,
      );
    }
    const restart = options.onApiRestarted;
    const watch = async (child: Child, index: number): Promise<string> => {
      const { code, signal } = await child.exited;
      frontAdmin.delete(child);
      void targets.publish();
      if (stopping) return new Promise<string>(() => undefined);
      const reason = `${child.name} exited unexpectedly (code ${code}, signal ${signal})`;
      if (!restart) return reason;
      log(`${reason}: restarting it`);
      // Bounded: a process that cannot start again ends the run.
      for (let attempt = 1; attempt <= 5 && !stopping; attempt++) {
        const next = spawnFront(frontNames[index]!, index);
        front[index] = next;
        try {
          const { port, adminPort } = await next.started;
          await waitForReady(`http://127.0.0.1:${port}/health/ready`, Date.now() + options.readyTimeoutMs);
          frontAdmin.set(next, `http://127.0.0.1:${adminPort}`);
          void targets.publish();
          restart(child.name, `http://127.0.0.1:${port}`, `http://127.0.0.1:${adminPort}`);
          return watch(next, index);
        } catch (error) {
          log(`${child.name}: restart ${attempt} failed: ${(error as Error).message}`);
          next.kill('SIGKILL');
          await next.exited;
        }
      }
      return `${reason}; it did not start again`;
    };
    const unexpectedExit = Promise.race(front.map((child, index) => watch(child, index)));
    const pids = () =>
      Object.assign(
        Object.fromEntries(front.map((child) => [child.name, child.process.pid!])),
        ...pools.map((pool) => pool.pids()),
      ) as Record<string, number>;
    await targets.publish();
    return { urls, admin, pids, targetsFile: targets.file, unexpectedExit, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
