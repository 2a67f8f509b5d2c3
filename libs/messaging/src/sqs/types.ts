import type { SQSClient } from '@aws-sdk/client-sqs';
import type { CloudEvent, EventContractsView, EventType } from '@hireflow/contracts';
import type { BackoffOptions, RandomSource } from '../backoff.ts';
import type { Logger } from '../logger.ts';
import type { SqsFairnessOptions } from './fair-intake.ts';
import type { SharedSlots } from './slots.ts';
import type { SupersededMarks } from './superseded.ts';

export interface MessageContext {
  /** The SQS message id (differs per re-send; the event id does not). */
  messageId: string;
  /** ApproximateReceiveCount: 1 on the first delivery. */
  receiveCount: number;
  queueName: string;
  /** String message attributes (`type`, trace context, `deferred-count`, …). */
  attributes: Record<string, string>;
  /** How many times the message was deferred (DeferError) or told to retry later so far: 0 at first. */
  deferredCount: number;
  /** How many times a handler failed on it so far (re-sent after each): 0 on its first handling. */
  failedCount: number;
}

export type EventHandler<T extends EventType> = (
  event: CloudEvent<T>,
  context: MessageContext,
) => Promise<void> | void;

/** One typed handler per event type the queue receives. */
export type EventHandlers = { [T in EventType]?: EventHandler<T> };

/**
 * `superseded`: a received message whose copy (or dead letter) was already
 * sent and whose delete was lost: deleted, its handler not run (superseded.ts).
 */
export type MessageOutcome =
  | 'handled'
  | 'failed'
  | 'retry-later'
  | 'deferred'
  | 'dead-lettered'
  | 'superseded';

/** What became of one received message; reported to `onMessage` once its final SQS call is done. */
export interface MessageRecord {
  outcome: MessageOutcome;
  messageId: string;
  queueName: string;
  receiveCount: number;
  /** Set when the body parsed as an event. */
  eventId?: string;
  type?: string;
  /** Why it was dead-lettered or deferred. */
  reason?: string;
  error?: unknown;
  /** The delay before the re-sent copy is visible (seconds), after a failure or a retry-later. */
  delaySeconds?: number;
  /**
   * Handler failures counted toward `maxAttempts` so far, this one included
   * (a failure that only says a dependency was unreachable is not counted).
   */
  failedCount?: number;
  durationMs?: number;
  /** How long the message waited in the queue before this receive: now minus its SentTimestamp. */
  ageMs?: number;
}

export type MessageObserver = (record: MessageRecord) => void;

export const DEFAULT_CONCURRENCY = 10;
export const DEFAULT_WAIT_TIME_SECONDS = 20;
/** Seconds: the first retry waits up to 5 s, then 10, 20, … never more than 15 min (SQS's DelaySeconds bound). */
export const DEFAULT_SQS_BACKOFF: BackoffOptions = { base: 5, cap: 900 };
/**
 * Handler failures before the consumer dead-letters a message: with the
 * default backoff the seven waits before the eighth failure are drawn below
 * 5, 10, 20, 40, 80, 160 and 320 s (~5 min expected, at most ~10 min), so a
 * dependency outage shorter than that dead-letters nothing.
 */
export const DEFAULT_MAX_ATTEMPTS = 8;

export interface SqsConsumerOptions {
  sqs: SQSClient;
  /** The queue and its DLQ (a ProvisionedQueue fits). */
  /** `logicalName` (the topology's name, no prefix) labels its metrics; default `name`. */
  queue: { name: string; url: string; dlq: { url: string }; logicalName?: string };
  handlers: EventHandlers;
  /**
   * The catalog messages are validated against, with its deprecations: a
   * message of a type no handler takes is upcast to a later version that
   * one does (default: Hireflow's catalog).
   */
  contracts?: EventContractsView;
  /** Handlers running at once (default 10); receives ask only for free slots. */
  concurrency?: number;
  /**
   * Fairness by tenant inside the queue (docs/fairness.md, fair-intake.ts):
   * the consumer also holds up to `hold` received messages (default: twice the
   * concurrency, at least 100) and starts them by tenant, the fewest running first; what it
   * receives of a tenant beyond its share of the hand is hidden
   * (ChangeMessageVisibility) until about its turn, so other tenants' messages
   * behind a flood are reached. Off by default; `startInbox` turns it on
   * (INBOX_FAIRNESS).
   */
  fairness?: boolean | SqsFairnessOptions;
  /**
   * With fairness: handler slots shared with the process's other consumers
   * (the inbox's other lane, slots.ts), leaving `reserve` of them to the
   * others. Without it, `concurrency` is this consumer's alone.
   */
  slots?: { shared: SharedSlots; reserve?: number };
  waitTimeSeconds?: number;
  /** Default: the queue's VisibilityTimeout attribute, read on start. */
  visibilityTimeoutSeconds?: number;
  /** Default: a third of the visibility timeout. */
  heartbeatIntervalMs?: number;
  /** Retry backoff after a failure, in seconds. */
  backoff?: BackoffOptions;
  random?: RandomSource;
  /** Longest total wait of a deferred message before it is dead-lettered (default 1 h). */
  maxDeferMs?: number;
  /** Handler failures after which the consumer dead-letters a message (default 8). */
  maxAttempts?: number;
  /**
   * Where re-sent messages are marked, so an original whose delete was lost
   * is not handled again beside its copy (one failure chain per message).
   * `startInbox` gives Redis; without it a lost delete forks the chain.
   */
  superseded?: SupersededMarks;
  logger?: Logger;
  onMessage?: MessageObserver;
}
