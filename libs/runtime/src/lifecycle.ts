import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { ConsumerName } from '@hireflow/contracts';
import type { SqlMigration } from '@hireflow/db';
import { shutdownTelemetry } from '@hireflow/telemetry';
import type { FastifyInstance } from 'fastify';
import { createAdminServer } from './admin.ts';
import { resolveChannels } from './channels.ts';
import { connectDeps, type ServiceDeps } from './deps.ts';
import { createLogger } from './logger.ts';
import { deadLetterAlarms } from './metrics/alarms.ts';
import { samplerLease } from './metrics/lease.ts';
import { type OutboxStats, startQueueSampler } from './metrics/sampler.ts';
import { watchParent } from './parent.ts';
import { adminPortOf, type ServiceConfig, samplesQueues } from './service-config.ts';
import type { AppState } from './service-server.ts';
import { releaseStartMemory } from './start-memory.ts';
import { withTimeout } from './timeout.ts';

/** Something that runs in the worker role (SQS consumer, BullMQ worker, outbox relay). */
export interface Closeable {
  name: string;
  close(): Promise<void>;
  /**
   * How long its close may take (default: a third of SHUTDOWN_TIMEOUT_MS):
   * a worker whose running work has a longer bound of its own (an SMTP send)
   * says so, and its service checks at start that the budget holds it.
   */
  timeoutMs?: number;
}

/** A service as its entrypoint runs it: config, schema, the two listeners and the worker role. */
export interface ServiceDefinition<C extends ServiceConfig> {
  /** One of the services, or a subscriber service of the registry (docs/subscribing.md). */
  name: ConsumerName;
  loadConfig(env: Record<string, string | undefined>): C;
  migrations: SqlMigration[];
  /** The service port: health and the public API. */
  buildApp(config: C, deps: ServiceDeps, state: AppState): Promise<FastifyInstance>;
  /** The admin port: a service adds its /internal routes (default: the bare admin listener). */
  buildAdmin?(config: C, deps: ServiceDeps): Promise<FastifyInstance>;
  /** The worker role; closed in the order returned. */
  startWorker(config: C, deps: ServiceDeps): Promise<Closeable[]>;
  /**
   * The service's BullMQ queues (names), for metrics, Bull Board and
   * dead-letter alarms: names only, importable without BullMQ (an API process
   * does not load it at start; issue 31).
   */
  queues?: string[];
  /** The outbox's backlog, for services that publish (`outboxStats` of @hireflow/messaging). */
  outboxStats?(deps: ServiceDeps): Promise<OutboxStats>;
}

/**
 * The queue gauges and dead-letter alarms of the service, sampled by this
 * process while it holds the lease: by default a process that runs the
 * worker (`samplesQueues`), whose BullMQ handles are made on its first round.
 */
async function startSampler<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  config: C,
  deps: ServiceDeps,
): Promise<Closeable> {
  const { inbox, bulkInbox } = await resolveChannels(deps);
  return startQueueSampler({
    gauges: deps.metrics.queues,
    sqs: deps.sqs,
    // Both lanes' queues: the gauges (and the autoscaler reading them) see the whole backlog.
    inboxes: [inbox, bulkInbox].flatMap((q) =>
      q ? [{ logicalName: q.logicalName, url: q.url, dlqUrl: q.dlq.url }] : [],
    ),
    queues: () => deps.queues.get(),
    outbox: definition.outboxStats && (() => definition.outboxStats!(deps)),
    lease: samplerLease({
      redis: deps.redis,
      key: `${config.REDIS_PREFIX}:queue-sampler`,
      holder: `${hostname()}:${process.pid}:${randomUUID()}`,
      // Three missed rounds and another process takes over.
      ttlMs: config.QUEUE_METRICS_INTERVAL_MS * 3,
    }),
    exportGauges: deps.metrics.exportQueues,
    alarms: deadLetterAlarms({
      redis: deps.redis,
      prefix: config.REDIS_PREFIX,
      service: definition.name,
      webhookUrl: config.ALERT_WEBHOOK_URL,
      log: deps.log,
    }),
    intervalMs: config.QUEUE_METRICS_INTERVAL_MS,
    log: deps.log.child({ component: 'queue-sampler' }),
  });
}

const portOf = (app: FastifyInstance) => (app.server.address() as AddressInfo | null)?.port;

/**
 * The entrypoint's life: parse config (a bad variable stops the start with a
 * message naming it), make the process's one logger, connect, start the
 * worker role and both listeners, and on SIGTERM/SIGINT shut down in a fixed
 * order: stop answering ready, drain HTTP, stop workers (in-flight work
 * finishes), close connections, flush telemetry.
 */
export async function runService<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  env: Record<string, string | undefined>,
): Promise<void> {
  // Where a start's time goes (issue 31), in the `started` log line and message:
  // from the process's start to here (Node, the telemetry preload, the
  // imports), then each step below.
  const startMs: Record<string, number> = { imports: Math.round(performance.now()) };
  let lastMark = performance.now();
  const mark = (name: string) => {
    const now = performance.now();
    startMs[name] = Math.round(now - lastMark);
    lastMark = now;
  };
  let config: C;
  try {
    config = definition.loadConfig(env);
  } catch (error) {
    console.error(`${definition.name}: ${(error as Error).message}`);
    process.exitCode = 78; // EX_CONFIG
    return;
  }
  const log = createLogger(definition.name, config.LOG_LEVEL);
  let accepting = true;
  let app: FastifyInstance | undefined;
  let admin: FastifyInstance | undefined;
  let workers: Closeable[] = [];
  let sampler: Closeable | undefined;
  let deps: ServiceDeps | undefined;

  const shutdown = async (reason: string): Promise<number> => {
    log.info({ reason }, 'shutting down');
    accepting = false;
    let failed = false;
    // Each step gets a bounded share of the shutdown budget: one that hangs
    // (a dependency gone) must not keep the later ones (flushing what is
    // committed, closing connections) from running.
    const defaultStepMs = Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 3));
    const step = async (name: string, fn: () => Promise<void>, timeoutMs = defaultStepMs) => {
      const started = performance.now();
      try {
        await withTimeout(fn(), timeoutMs);
        log.debug({ step: name, ms: Math.round(performance.now() - started) }, 'shutdown step done');
      } catch (error) {
        failed = true;
        log.error({ err: error, step: name }, 'shutdown step failed');
      }
    };
    if (app) await step('http', () => app!.close());
    for (const worker of workers) await step(worker.name, () => worker.close(), worker.timeoutMs);
    if (sampler) await step(sampler.name, () => sampler!.close());
    // Last among the listeners: metrics stay scrapeable while the workers drain.
    if (admin) await step('admin', () => admin!.close());
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
  // Spawned by a launcher or a test with an IPC channel: when it is gone, stop
  // too, even when it died before this ran (then nothing is started at all).
  watchParent((reason) => {
    log.warn({ reason }, 'the process that started this one is gone');
    onSignal('SIGHUP');
  });
  if (stopping) return;

  try {
    deps = await connectDeps(config, {
      service: definition.name,
      migrations: definition.migrations,
      env,
      log,
      queues: definition.queues ?? [],
    });
    mark('connect');
    if (samplesQueues(config)) sampler = await startSampler(definition, config, deps);
    if (config.ROLE !== 'api') workers = await definition.startWorker(config, deps);
    mark('worker');
    // Every role listens: a worker serves /health for its orchestrator, the
    // app registers public routes only when the role includes the API.
    app = await definition.buildApp(config, deps, { accepting: () => accepting });
    const adminApp = definition.buildAdmin
      ? await definition.buildAdmin(config, deps)
      : createAdminServer(config, deps);
    await adminApp.ready();
    admin = adminApp;
    mark('servers');
    await app.listen({ host: config.HOST, port: config.PORT });
    await adminApp.listen({ host: config.ADMIN_HOST, port: adminPortOf(config) });
    mark('listen');
    const port = portOf(app);
    const adminPort = portOf(adminApp);
    log.info({ role: config.ROLE, port, adminPort, workers: workers.map((w) => w.name), startMs }, 'started');
    // A launcher that spawned us with an IPC channel learns the bound ports.
    process.send?.({
      type: 'started',
      service: definition.name,
      port,
      adminPort,
      role: config.ROLE,
      startMs,
    });
    // Once ready (after the message: the collection is no part of the start's
    // time): give back what the start grew and no longer uses.
    setImmediate(releaseStartMemory);
  } catch (error) {
    log.fatal({ err: error }, 'start failed');
    await shutdown('start failed');
    // Whatever a half-started dependency left running (a reconnecting client,
    // a relay loop) must not keep a failed process alive.
    process.exit(1);
  }
}
