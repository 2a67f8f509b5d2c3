import { shutdownTelemetry } from '@hireflow/telemetry';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { ServiceDeps } from './deps.ts';
import { loggerOptions } from './logger.ts';
import type { ServiceConfig } from './service-config.ts';
import type { AppState } from './service-server.ts';
import { withTimeout } from './timeout.ts';

/** Something that runs in the worker role (SQS consumer, BullMQ worker, outbox relay). */
export interface Closeable {
  name: string;
  close(): Promise<void>;
}

export interface RunServiceOptions<C extends ServiceConfig> {
  service: string;
  loadConfig(): C;
  connect(config: C): Promise<ServiceDeps>;
  buildApp(config: C, deps: ServiceDeps, state: AppState): Promise<FastifyInstance>;
  startWorker(config: C, deps: ServiceDeps): Promise<Closeable[]>;
}

/**
 * The entrypoint's life: parse config (a bad variable stops the start with a
 * message naming it), connect, start the API and/or worker role, and on
 * SIGTERM/SIGINT shut down in a fixed order: stop answering ready, drain HTTP,
 * stop workers (in-flight work finishes), close connections, flush telemetry.
 */
export async function runService<C extends ServiceConfig>(options: RunServiceOptions<C>): Promise<void> {
  let config: C;
  try {
    config = options.loadConfig();
  } catch (error) {
    console.error(`${options.service}: ${(error as Error).message}`);
    process.exitCode = 78; // EX_CONFIG
    return;
  }
  const log = pino(loggerOptions(options.service, config.LOG_LEVEL));
  let accepting = true;
  let app: FastifyInstance | undefined;
  let workers: Closeable[] = [];
  let deps: ServiceDeps | undefined;

  const shutdown = async (reason: string): Promise<number> => {
    log.info({ reason }, 'shutting down');
    accepting = false;
    let failed = false;
    // Each step gets a bounded share of the shutdown budget: one that hangs
    // (a dependency gone) must not keep the later ones (flushing what is
    // committed, closing connections) from running.
    const stepTimeoutMs = Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 3));
    const step = async (name: string, fn: () => Promise<void>) => {
      const started = performance.now();
      try {
        await withTimeout(fn(), stepTimeoutMs);
        log.debug({ step: name, ms: Math.round(performance.now() - started) }, 'shutdown step done');
      } catch (error) {
        failed = true;
        log.error({ err: error, step: name }, 'shutdown step failed');
      }
    };
    if (app) await step('http', () => app!.close());
    for (const worker of workers) await step(worker.name, () => worker.close());
    if (deps) await step('connections', () => deps!.close());
    await step('telemetry', () => shutdownTelemetry());
    log.info({ failed }, 'stopped');
    return failed ? 1 : 0;
  };

  let stopping: Promise<number> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    const timer = setTimeout(() => {
      log.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'graceful shutdown timed out');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    stopping = shutdown(signal);
    stopping.then((code) => {
      clearTimeout(timer);
      process.exit(code);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Spawned by a launcher with an IPC channel: if the launcher dies, stop too.
  const onParentGone = () => onSignal('SIGHUP');
  if (process.connected) process.once('disconnect', onParentGone);

  try {
    deps = await options.connect(config);
    if (config.ROLE !== 'api') workers = await options.startWorker(config, deps);
    // Every role listens: a worker serves /health for its orchestrator, the
    // app registers public routes only when the role includes the API.
    app = await options.buildApp(config, deps, { accepting: () => accepting });
    await app.listen({ host: config.HOST, port: config.PORT });
    const address = app?.server.address();
    const port = address && typeof address === 'object' ? address.port : undefined;
    log.info({ role: config.ROLE, port, workers: workers.map((w) => w.name) }, 'started');
    // A launcher that spawned us with an IPC channel learns the bound port.
    process.send?.({ type: 'started', service: options.service, port, role: config.ROLE });
  } catch (error) {
    log.fatal({ err: error }, 'start failed');
    await shutdown('start failed');
    // Whatever a half-started dependency left running (a reconnecting client,
    // a relay loop) must not keep a failed process alive.
    process.exit(1);
  }
}
