import { type Closeable, type ServiceDeps, startInbox } from '@hireflow/runtime';
import { dropRetiredAutoCloseQueue } from './compat/retired-auto-close-queue.ts';
import type { Config } from './config.ts';
import { postingHandlers } from './modules/inbox/consumers.ts';
import { closeOverduePostings } from './modules/postings/service.ts';
import { StatusFeed } from './modules/postings/status-feed.ts';
import { startWebhookDelivery } from './modules/webhooks/delivery-worker.ts';

const AUTO_CLOSE_BATCH = 100;

/**
 * The jobs worker role: the inbox (read model, SSE notices, webhook deliveries created), the outbox
 * relay, the webhook delivery worker, the auto-close sweep.
 */
export async function startWorker(config: Config, deps: ServiceDeps): Promise<Closeable[]> {
  const log = deps.log.child({ role: 'worker' });
  const feed = new StatusFeed(deps.redis, config.REDIS_PREFIX);
  const webhooks = startWebhookDelivery(config, deps, log);
  const inbox = await startInbox(deps, {
    handlers: postingHandlers(deps.orm, feed, log, {
      mediaPublicUrl: config.MEDIA_PUBLIC_URL,
      deliveries: webhooks.queue,
    }),
    consumer: { fairness: config.INBOX_FAIRNESS === 'on' },
    eventLogRetentionDays: config.EVENT_LOG_RETENTION_DAYS,
    housekeeping: [
      {
        // Auto-close: every open posting past its close_at, within a minute of it.
        name: 'auto-close-sweep',
        intervalMs: 60_000,
        run: async () => {
          // Batches of 100 until none is overdue (bounded: a burst of postings closes in one round).
          for (let batch = 0; batch < 100; batch++) {
            const closed = await closeOverduePostings(deps.orm.em.fork(), AUTO_CLOSE_BATCH);
            for (const postingId of closed)
              await feed.notify({ postingId, status: 'closed', matchCount: null }, log);
            if (closed.length < AUTO_CLOSE_BATCH) break;
          }
        },
      },
      dropRetiredAutoCloseQueue(deps.redis, config.REDIS_PREFIX),
    ],
    log,
  }).catch(async (error: unknown) => {
    // The inbox did not start: the delivery worker started before it must not outlive the start.
    for (const closeable of webhooks.closeables) await closeable.close().catch(() => undefined);
    throw error;
  });
  return inbox.closeables([...webhooks.closeables, { name: 'status-feed', close: () => feed.close() }]);
}
