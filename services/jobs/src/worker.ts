import { pruneExpired } from '@hireflow/idempotency';
import { OutboxRelay, SnsPublisher, SqsConsumer } from '@hireflow/messaging';
import { type Closeable, resolveChannels, type ServiceDeps, startPeriodicTasks } from '@hireflow/runtime';
import type { Config } from './config.ts';
import { startAutoCloseWorker } from './modules/postings/auto-close.ts';
import { postingHandlers } from './modules/postings/consumers.ts';
import { closeOverduePostings } from './modules/postings/service.ts';
import { StatusFeed } from './modules/postings/status-feed.ts';

const AUTO_CLOSE_BATCH = 100;

/** The jobs worker role: inbox consumer, outbox relay, auto-close sweep. */
export async function startWorker(config: Config, deps: ServiceDeps): Promise<Closeable[]> {
  const log = deps.log.child({ role: 'worker' });
  const channels = await resolveChannels(deps);
  const feed = new StatusFeed(deps.redis, config.REDIS_PREFIX);

  const relay = new OutboxRelay({
    orm: deps.orm,
    publisher: new SnsPublisher(deps.sns),
    topicArns: channels.topicArns,
    eventLogRetentionMs: config.EVENT_LOG_RETENTION_DAYS * 24 * 3_600_000,
    logger: log,
  });
  await relay.start();
  const consumer = new SqsConsumer({
    sqs: deps.sqs,
    queue: channels.inbox!,
    handlers: postingHandlers(deps.orm, feed, log, { mediaPublicUrl: config.MEDIA_PUBLIC_URL }),
    logger: log,
  });
  await consumer.start();
  const autoClose = startAutoCloseWorker({
    orm: deps.orm,
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    feed,
    log,
  });

  const housekeeping = startPeriodicTasks(
    [
      { name: 'idempotency-prune', intervalMs: 3_600_000, run: () => pruneExpired(deps.orm) },
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
      // docs/design.md: the visibility timeout follows the handlers' measured p99.
      { name: 'visibility-resize', intervalMs: 300_000, run: () => consumer.resizeVisibilityTimeout() },
    ],
    log,
  );

  // Order: stop taking new messages and tasks, then flush what is committed to SNS.
  return [
    housekeeping,
    { name: 'sqs-consumer', close: () => consumer.close() },
    { name: 'auto-close-worker', close: async () => void (await autoClose.close()) },
    { name: 'outbox-relay', close: () => relay.close() },
    { name: 'status-feed', close: () => feed.close() },
  ];
}
