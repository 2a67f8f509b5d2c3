// BullMQ's task queues and workers are `@hireflow/messaging/tasks` (src/tasks.ts):
// this index loads no BullMQ, so a process that never queues a task does not
// carry it, and one that queues one now and then (an API process) loads it on
// its first task: `lazyTaskQueue` (issue 31).
export type { StringAttribute } from './attributes.ts';
export { eventAttributes } from './attributes.ts';
export type { BackoffOptions, RandomSource } from './backoff.ts';
export { backoffBound, fullJitter } from './backoff.ts';
export type { RedisConnection } from './bullmq/connection.ts';
export type { Fairness, FairnessOptions, FairTask, Lane } from './bullmq/fair.ts';
export { LANE_SPAN, LANES, laneOfPriority, priorityOf, tenantBacklogs } from './bullmq/fair.ts';
export type { LazyTaskQueue } from './bullmq/lazy-queue.ts';
export { lazyTaskQueue } from './bullmq/lazy-queue.ts';
export { dropRetiredQueue } from './bullmq/retired.ts';
export { taskIdFor } from './bullmq/task-id.ts';
export { isDependencyUnavailable, isPermanent, MessagingError, PermanentError } from './errors.ts';
export {
  DEFAULT_EVENT_LOG_RETENTION_DAYS,
  DEFAULT_EVENT_LOG_RETENTION_MS,
  pruneEventLog,
} from './event-log/prune.ts';
export type { EventLogPage, LoggedEvent } from './event-log/routes.ts';
export { EVENT_LOG_MAX_PAGE, registerEventLogRoutes } from './event-log/routes.ts';
export type { FirstUse } from './first-use.ts';
export { madeOnFirstUse } from './first-use.ts';
export { laneOf } from './lane.ts';
export type { Logger } from './logger.ts';
export { enqueueEvent, enqueueEvents, outboxInsertStatement } from './outbox/enqueue.ts';
export { OUTBOX_CHANNEL, outboxMigrations } from './outbox/migrations.ts';
export { DEFAULT_OUTBOX_RETENTION_MS, pruneOutbox } from './outbox/prune.ts';
export type { OutboxRelayOptions, RelayOutcome } from './outbox/relay.ts';
export {
  DEFAULT_PRUNE_INTERVAL_MS,
  DEFAULT_RELAY_BATCH_SIZE,
  DEFAULT_RELAY_LINGER_MS,
  DEFAULT_RELAY_POLL_INTERVAL_MS,
  OutboxRelay,
} from './outbox/relay.ts';
export { outboxStats } from './outbox/store.ts';
export { enqueueVersions } from './outbox/versions.ts';
export { untraced, untracedContext, withoutChildSpans } from './quiet.ts';
export type { RetryLaterOptions } from './retry-later.ts';
export {
  DeferError,
  RETRY_LATER_BASE_MS,
  RETRY_LATER_CAP_MS,
  RETRY_LATER_MIN_MS,
  RetryLaterError,
  retryLater,
  retryLaterDelayMs,
  retryLaterOf,
} from './retry-later.ts';
export type { OutgoingEvent, PublishFailure, PublishResult } from './sns/publisher.ts';
export { SNS_MAX_BATCH, SnsPublisher } from './sns/publisher.ts';
export { SqsConsumer } from './sqs/consumer.ts';
export { deadLetter } from './sqs/dead-letter.ts';
export type { DeferOptions } from './sqs/defer.ts';
export { DEFAULT_MAX_DEFER_MS, deferMessage } from './sqs/defer.ts';
export type { SqsFairnessOptions } from './sqs/fair-intake.ts';
export { interactiveReserve, SharedSlots } from './sqs/slots.ts';
export type { SupersededMarks } from './sqs/superseded.ts';
export { redisSupersededMarks } from './sqs/superseded.ts';
export type {
  EventHandler,
  EventHandlers,
  MessageContext,
  MessageObserver,
  MessageOutcome,
  MessageRecord,
  SqsConsumerOptions,
} from './sqs/types.ts';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_SQS_BACKOFF,
  DEFAULT_WAIT_TIME_SECONDS,
} from './sqs/types.ts';
export type { EventDecoder } from './sqs/upcast.ts';
export { eventDecoder } from './sqs/upcast.ts';
export type { VisibilityResize, VisibilityResizeOptions } from './sqs/visibility.ts';
export type { TraceCarrier } from './trace.ts';
export { extractTrace, injectTrace } from './trace.ts';
export { Wakeup } from './wake.ts';
