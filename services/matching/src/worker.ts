import type { MessageObserver } from '@hireflow/messaging';
import { type Closeable, type ServiceDeps, startInbox } from '@hireflow/runtime';
import type { Config } from './config.ts';
import type { Embedder } from './modules/embedding/embedder.ts';
import { FeatureHashingEmbedder } from './modules/embedding/feature-hashing.ts';
import { ProfileEmbedder } from './modules/embedding/profile.ts';
import { matchingHandlers } from './modules/matches/consumers.ts';
import { startMatchWorker } from './modules/matches/processor.ts';
import { createMatchQueue } from './modules/matches/queue.ts';
import type { Computation, MatchingContext } from './modules/matches/service.ts';
import { requeueUncomputed } from './modules/matches/sweep.ts';
import { TenantCache } from './modules/matches/tenant-cache.ts';

/** Observers and overrides a test or benchmark passes (dependency overrides, not mocks). */
export interface WorkerHooks {
  onMessage?: MessageObserver;
  onComputed?: (computation: Computation) => void;
  /** Another embedder than the default feature hashing (a model change). */
  embedder?: Embedder;
}

/**
 * The matching worker role: the inbox (postings, candidates, closures into
 * the tables), the `match` BullMQ worker (embed, then compute under the
 * tenant's lock), the outbox relay (match.found.v1, job.matched.v1) and
 * housekeeping.
 */
export async function startWorker(
  config: Config,
  deps: ServiceDeps,
  hooks: WorkerHooks = {},
): Promise<Closeable[]> {
  const log = deps.log.child({ role: 'worker' });
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
    tenantConcurrency: config.MATCH_TENANT_CONCURRENCY,
    headroom: config.MATCH_HEADROOM,
    log,
    ...(hooks.onComputed ? { onComputed: hooks.onComputed } : {}),
  });
  const inbox = await startInbox(deps, {
    handlers: matchingHandlers({ orm: deps.orm, queue }),
    consumer: {
      concurrency: config.INBOX_CONCURRENCY,
      fairness: config.INBOX_FAIRNESS === 'on',
      ...(hooks.onMessage ? { onMessage: hooks.onMessage } : {}),
    },
    eventLogRetentionDays: config.EVENT_LOG_RETENTION_DAYS,
    housekeeping: [
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
    ],
    log,
  });

  // Running computations commit before the relay flushes their events to SNS.
  return inbox.closeables([
    { name: 'match-worker', close: async () => void (await matchWorker.close()) },
    { name: 'match-queue', close: () => queue.close() },
  ]);
}
