import { pruneExpired } from '@hireflow/idempotency';
import { type MessageObserver, OutboxRelay, SnsPublisher, SqsConsumer } from '@hireflow/messaging';
import { type Closeable, resolveChannels, type ServiceDeps, startPeriodicTasks } from '@hireflow/runtime';
import type { Config } from './config.ts';
import type { Embedder } from './modules/embedding/embedder.ts';
import { FeatureHashingEmbedder } from './modules/embedding/feature-hashing.ts';
import { ProfileEmbedder } from './modules/embedding/profile.ts';
import { startMatchWorker } from './modules/matches/processor.ts';
import { createMatchQueue } from './modules/matches/queue.ts';
import type { Computation, MatchingContext } from './modules/matches/service.ts';
import { requeueUncomputed } from './modules/matches/sweep.ts';
import { TenantCache } from './modules/matches/tenant-cache.ts';
import { matchingHandlers } from './modules/profiles/consumers.ts';

/** Observers and overrides a test or benchmark passes (dependency overrides, not mocks). */
export interface WorkerHooks {
  onMessage?: MessageObserver;
  onComputed?: (computation: Computation) => void;
  /** Another embedder than the default feature hashing (a model change). */
  embedder?: Embedder;
}

/**
 * The matching worker role: the inbox consumer (postings, candidates,
 * closures into the tables), the `match` BullMQ worker (embed, then compute
 * under the tenant's lock), the outbox relay (match.found.v1,
 * job.matched.v1) and housekeeping.
 */
export async function startWorker(
  config: Config,
  deps: ServiceDeps,
  hooks: WorkerHooks = {},
): Promise<Closeable[]> {
  const log = deps.log.child({ role: 'worker' });
  const channels = await resolveChannels(deps);
  const embedder = new ProfileEmbedder(hooks.embedder ?? new FeatureHashingEmbedder());
  const cache = new TenantCache({
    dims: embedder.dims,
    modelId: embedder.id,
    idleMs: config.MATCH_TENANT_IDLE_MS,
  });
  const context: MatchingContext = {
    orm: deps.orm,
    cache,
    embedder,
    settings: {
      threshold: config.MATCH_THRESHOLD,
      limit: config.MATCH_LIMIT,
      cosineWeight: config.MATCH_COSINE_WEIGHT,
    },
  };

  const relay = new OutboxRelay({
    orm: deps.orm,
    publisher: new SnsPublisher(deps.sns),
    topicArns: channels.topicArns,
    logger: log,
  });
  await relay.start();
  const queue = createMatchQueue({
    connection: deps.redis,
    prefix: config.REDIS_PREFIX,
    attempts: config.MATCH_ATTEMPTS,
    logger: log,
  });
  const matchWorker = startMatchWorker({
    context,
    connection: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    concurrency: config.MATCH_CONCURRENCY,
    log,
    ...(hooks.onComputed ? { onComputed: hooks.onComputed } : {}),
  });
  const consumer = new SqsConsumer({
    sqs: deps.sqs,
    queue: channels.inbox!,
    handlers: matchingHandlers({ orm: deps.orm, queue }),
    concurrency: config.INBOX_CONCURRENCY,
    logger: log,
    ...(hooks.onMessage ? { onMessage: hooks.onMessage } : {}),
  });
  await consumer.start();

  const housekeeping = startPeriodicTasks(
    [
      { name: 'idempotency-prune', intervalMs: 3_600_000, run: () => pruneExpired(deps.orm) },
      {
        // Memory follows the tenants this worker serves: an idle one is reloaded on its next use.
        name: 'tenant-evict',
        intervalMs: Math.min(60_000, config.MATCH_TENANT_IDLE_MS),
        run: async () => cache.evictIdle().length,
      },
      {
        // A computation BullMQ lost (not one that failed for good) is added again.
        name: 'requeue-uncomputed',
        intervalMs: config.MATCH_SWEEP_INTERVAL_MS,
        run: () =>
          requeueUncomputed(deps.orm.em.fork(), queue, { olderThanMs: config.MATCH_SWEEP_AFTER_MS }).then(
            (requeued) => requeued.length > 0 && log.warn({ requeued }, 'requeued lost computations'),
          ),
      },
      // docs/design.md: the visibility timeout follows the handlers' measured p99.
      { name: 'visibility-resize', intervalMs: 300_000, run: () => consumer.resizeVisibilityTimeout() },
    ],
    log,
  );

  // Order: stop taking events, let running computations commit, then flush the outbox to SNS.
  return [
    housekeeping,
    { name: 'sqs-consumer', close: () => consumer.close() },
    { name: 'match-worker', close: async () => void (await matchWorker.close()) },
    { name: 'match-queue', close: () => queue.close() },
    { name: 'outbox-relay', close: () => relay.close() },
  ];
}
