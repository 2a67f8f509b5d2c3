import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { type AnyEvent, type EventType, InvalidEventError } from '@hireflow/contracts';
import { signals } from '@hireflow/contracts/signals';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { ATTR_FAILED_COUNT } from '../attributes.ts';
import { fullJitter } from '../backoff.ts';
import { isDependencyUnavailable, isPermanent } from '../errors.ts';
import { type Logger, resolveLogger } from '../logger.ts';
import { tenantOfBody, UNKNOWN_TENANT } from '../message-group.ts';
import { untraced } from '../quiet.ts';
import { DeferError, retryLaterDelayMs, retryLaterOf } from '../retry-later.ts';
import { extractTrace, processSpanOptions, recordHandlerFailure } from '../trace.ts';
import { Wakeup } from '../wake.ts';
import { deadLetter } from './dead-letter.ts';
import { DEFAULT_MAX_DEFER_MS, deferMessage } from './defer.ts';
import { BatchDeleter } from './deleter.ts';
import { DurationWindow } from './durations.ts';
import { DEFAULT_HANDLER_MS, FairIntake, FifoIntake, type Intake } from './fair-intake.ts';
import { Heartbeat, type Lease } from './heartbeat.ts';
import { type DecodedMessage, decodeMessage } from './message.ts';
import { resendMessage } from './resend.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_SQS_BACKOFF,
  DEFAULT_WAIT_TIME_SECONDS,
  type EventHandler,
  type MessageRecord,
  type SqsConsumerOptions,
} from './types.ts';
import { type EventDecoder, eventDecoder } from './upcast.ts';
import {
  resizeVisibilityTimeout,
  type VisibilityResize,
  type VisibilityResizeOptions,
} from './visibility.ts';

interface InFlight extends Lease {
  message: Message;
  /** Its event's tenant with fairness on (fair-intake.ts); UNKNOWN_TENANT without. */
  tenant: string;
}

const tracer = trace.getTracer('@hireflow/messaging');
/** Receives at once while a consumer with fairness looks ahead past a flood. */
const LOOKAHEAD_POLLS = 3;

/**
 * Long-polls an SQS queue and runs typed handlers: validation (poison goes to
 * the DLQ at once), a process span that continues the producer's trace,
 * heartbeats while a handler runs, full-jitter backoff on failure, batched
 * deletes on success, and a graceful `close()`.
 *
 * A receive is not a verdict: a worker killed or paused while it holds a
 * message burns one, and SQS cannot tell that from a failure. So the consumer
 * counts what it decided itself: a failed or waiting message is re-sent with
 * its delay and a `failed-count` / `deferred-count` attribute (a fresh receive
 * count), dead-lettered by the consumer after `maxAttempts` failures or
 * `maxDeferMs` of waiting, with the reason. A failure that only says a
 * dependency was unreachable (isDependencyUnavailable) is a wait, not an
 * attempt: a database failover dead-letters nothing. The queue's `maxReceiveCount`
 * only catches a message that no receive ever settles (one that kills every
 * worker taking it).
 */
export class SqsConsumer {
  readonly #options: SqsConsumerOptions;
  readonly #log: Logger;
  readonly #inFlight = new Map<string, InFlight>();
  readonly #running = new Set<Promise<void>>();
  readonly #capacity = new Wakeup();
  readonly #durations = new DurationWindow();
  readonly #deleter: BatchDeleter;
  readonly #heartbeat: Heartbeat;
  readonly #decode: EventDecoder;
  readonly #intake: Intake<InFlight>;
  /** The process's shared slots (slots.ts): with fairness only, as `startInbox` gives them. */
  readonly #slots: SqsConsumerOptions['slots'];
  #visibilitySeconds = 0;
  #loop: Promise<void> | undefined;
  #starting: Promise<void> | undefined;
  readonly #polls = new Set<AbortController>();
  #closing = false;

  constructor(options: SqsConsumerOptions) {
    this.#options = options;
    this.#log = resolveLogger(options.logger, 'sqs-consumer').child({ queue: options.queue.name });
    this.#deleter = new BatchDeleter(options.sqs, options.queue.url, this.#log);
    this.#heartbeat = new Heartbeat(options.sqs, options.queue.url, this.#log, () => this.#inFlight.values());
    this.#decode = eventDecoder(options);
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.#intake = options.fairness
      ? new FairIntake(concurrency, options.fairness === true ? {} : options.fairness)
      : new FifoIntake(concurrency);
    this.#slots = options.fairness ? options.slots : undefined;
    this.#slots?.shared.subscribe(() => this.#startHeld());
  }

  /** Messages received and not yet settled (with fairness on, the held ones too). */
  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** Messages hidden for fairness so far (0 without fairness). */
  get fairnessHiddenCount(): number {
    return this.#intake.hidden;
  }

  get visibilityTimeoutSeconds(): number {
    return this.#visibilitySeconds;
  }

  /** Starts polling (once: a second call while it starts waits for the same start). */
  start(): Promise<void> {
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    if (this.#loop) return;
    this.#closing = false;
    this.#visibilitySeconds = this.#options.visibilityTimeoutSeconds ?? (await this.#readVisibilityTimeout());
    // Closed while it read the queue's timeout: no loop, and no heartbeat timer left
    // behind to keep the process alive (close() has stopped the heartbeat already).
    if (this.#closing) return;
    this.#startHeartbeat();
    this.#loop = this.#run();
  }

  /** Stops polling, lets running handlers finish and settle, then returns. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const poll of this.#polls) poll.abort();
    this.#capacity.signal();
    await this.#loop;
    this.#loop = undefined;
    await this.#giveBackHeld();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    await this.#deleter.flush();
    this.#heartbeat.stop();
  }

  /** Handler duration percentile (ms) over recent messages. */
  handlerDurationPercentile(p = 99): number | undefined {
    return this.#durations.percentile(p);
  }

  /** Resizes the queue's VisibilityTimeout from the measured p99 (see resizeVisibilityTimeout). */
  async resizeVisibilityTimeout(options: VisibilityResizeOptions = {}): Promise<VisibilityResize> {
    const result = await resizeVisibilityTimeout(
      this.#options.sqs,
      this.#options.queue.url,
      this.#durations,
      this.#visibilitySeconds,
      options,
    );
    if (result.changed) {
      this.#visibilitySeconds = result.visibilityTimeoutSeconds;
      this.#startHeartbeat();
    }
    return result;
  }

  #startHeartbeat(): void {
    const interval =
      this.#options.heartbeatIntervalMs ?? Math.max(1000, (this.#visibilitySeconds * 1000) / 3);
    this.#heartbeat.start(interval, this.#visibilitySeconds);
  }

  async #readVisibilityTimeout(): Promise<number> {
    const result = await this.#options.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.#options.queue.url,
        AttributeNames: ['VisibilityTimeout'],
      }),
    );
    return Number(result.Attributes?.VisibilityTimeout ?? 30);
  }

  /**
   * The one receive loop, with or without fairness: receives while the hand
   * has room (the intake's `receiveLimit`, less what is in hand and what the
   * receives under way asked for), one receive at a time, or up to three at
   * once while a fair intake looks ahead past a flood, so the flood is swept
   * past at three receives' pace, not one's. Without fairness the limit is
   * the concurrency: receives ask only for free slots, as ever.
   */
  async #run(): Promise<void> {
    const intake = this.#intake;
    const polls = new Set<Promise<void>>();
    let asked = 0;
    while (!this.#closing) {
      // As many receives under way as may be: only one of them ending can
      // allow another (the look-ahead starts as a receive fills the hand).
      if (polls.size >= (intake.lookingAhead ? LOOKAHEAD_POLLS : 1)) {
        await Promise.race(polls);
        continue;
      }
      const free = intake.receiveLimit - this.#inFlight.size - asked;
      if (free <= 0) {
        await Promise.race([this.#capacity.wait(1000), ...polls]);
        continue;
      }
      const max = Math.min(10, free);
      asked += max;
      const poll: Promise<void> = this.#receive(max)
        .then(
          (messages) => this.#admit(messages),
          async (error: unknown) => {
            if (this.#closing) return;
            this.#log.error({ err: error }, 'receive failed; retrying');
            await this.#capacity.wait(1000);
          },
        )
        // Never the end of the loop: a consumer that stopped receiving would say nothing.
        .catch((error: unknown) => this.#log.error({ err: error }, 'admitting received messages failed'))
        .finally(() => {
          asked -= max;
          polls.delete(poll);
        });
      polls.add(poll);
    }
    await Promise.allSettled([...polls]);
  }

  /**
   * Each received message goes to the intake: held for a slot, or, with
   * fairness (fair-intake.ts), hidden until about its tenant's turn; the free
   * slots then take the held ones (without fairness, in the order received;
   * with it, the tenant with the fewest running first). A hidden message is
   * the same message, untouched: its receive count is one more (bounded by
   * `maxHides`), its failed count, trace context and sent time are as they were.
   */
  #admit(messages: Message[]): void {
    const intake = this.#intake;
    const now = Date.now();
    // Without fairness the tenant and the pace are not needed: no body parsed, no percentile sorted.
    const handlerMs = intake.byTenant
      ? (this.#durations.percentile(50) ?? DEFAULT_HANDLER_MS)
      : DEFAULT_HANDLER_MS;
    const hide: { entry: InFlight; seconds: number }[] = [];
    for (const message of messages) {
      const tenant = intake.byTenant ? tenantOfBody(decodeMessage(message).body) : UNKNOWN_TENANT;
      const entry = this.#entry(message, tenant);
      const receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? 1) || 1;
      const placed = intake.place(entry, tenant, receiveCount, now, handlerMs);
      // Whole seconds, rounded down: back a little early, the hand absorbs it.
      if (!placed.hold) hide.push({ entry, seconds: Math.max(1, Math.floor(placed.hideMs / 1000)) });
    }
    if (hide.length > 0) {
      const call = this.#hide(hide).finally(() => this.#running.delete(call));
      this.#running.add(call);
    }
    this.#startHeld();
  }

  /**
   * Starts held messages while slots are free (its own, and the process's
   * shared ones). Not once the consumer is closing: close() gives what is
   * held back to the queue.
   */
  #startHeld(): void {
    if (this.#closing) return;
    const slots = this.#slots;
    while (!slots || slots.shared.available(slots.reserve) > 0) {
      const next = this.#intake.next();
      if (!next) return;
      slots?.shared.take();
      this.#launch(next.item);
    }
  }

  /**
   * Hides messages for fairness: their visibility set to when they are due
   * back, in one call per 10. They leave the hand at once, so the next
   * receive goes on looking past them while the calls are under way (the
   * visibility of the receive covers them until then). A failed change leaves
   * the message invisible until that visibility ends: it comes back later,
   * never lost.
   */
  async #hide(hidden: { entry: InFlight; seconds: number }[]): Promise<void> {
    for (const { entry } of hidden) {
      entry.settled = true;
      if (this.#inFlight.delete(entry.receiptHandle)) this.#capacity.signal();
    }
    await Promise.all(hidden.map(({ entry }) => entry.pending));
    for (let i = 0; i < hidden.length; i += 10) {
      const chunk = hidden.slice(i, i + 10);
      try {
        const result = await untraced(() =>
          this.#options.sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: this.#options.queue.url,
              Entries: chunk.map(({ entry, seconds }, j) => ({
                Id: String(j),
                ReceiptHandle: entry.receiptHandle,
                VisibilityTimeout: seconds,
              })),
            }),
          ),
        );
        if ((result.Failed ?? []).length > 0) {
          this.#log.warn({ failed: result.Failed!.length }, 'fairness: could not hide some messages');
        }
      } catch (error) {
        this.#log.warn({ err: error }, 'fairness: hiding messages failed; they come back after the timeout');
      }
    }
  }

  /** On close: held messages, never started, go back to the queue at once (visibility 0). */
  async #giveBackHeld(): Promise<void> {
    const held = this.#intake.drain();
    if (held.length > 0) await this.#hide(held.map((entry) => ({ entry, seconds: 0 })));
  }

  async #receive(max: number): Promise<Message[]> {
    const poll = new AbortController();
    this.#polls.add(poll);
    try {
      // An empty long poll is no story: the receive records no span. Each
      // message's process span continues its producer's trace instead.
      const signal = poll.signal;
      const result = await untraced(() =>
        this.#options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.#options.queue.url,
            MaxNumberOfMessages: max,
            WaitTimeSeconds: this.#options.waitTimeSeconds ?? DEFAULT_WAIT_TIME_SECONDS,
            MessageAttributeNames: ['All'],
            // MessageGroupId: on AWS, what a re-send or a dead letter carries on (message-group.ts).
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'MessageGroupId'],
          }),
          { abortSignal: signal },
        ),
      );
      return result.Messages ?? [];
    } finally {
      this.#polls.delete(poll);
    }
  }

  #entry(message: Message, tenant: string): InFlight {
    const entry: InFlight = {
      message,
      tenant,
      receiptHandle: message.ReceiptHandle!,
      extendedAt: Date.now(),
      settled: false,
    };
    this.#inFlight.set(entry.receiptHandle, entry);
    return entry;
  }

  #launch(entry: InFlight): void {
    const { message } = entry;
    const run = this.#process(entry)
      .catch((error) =>
        this.#log.error({ err: error, messageId: message.MessageId }, 'settling a message failed'),
      )
      .finally(() => {
        this.#release(entry);
        this.#running.delete(run);
      });
    this.#running.add(run);
  }

  /** Frees the message's slot (idempotent): a held message takes it, this consumer's or, shared, another's. */
  #release(entry: InFlight): void {
    if (!this.#inFlight.delete(entry.receiptHandle)) return;
    this.#intake.done(entry.tenant);
    if (this.#slots) this.#slots.shared.give();
    else this.#startHeld();
    this.#capacity.signal();
  }

  async #process(entry: InFlight): Promise<void> {
    const { message } = entry;
    const decoded = decodeMessage(message);
    const base = {
      messageId: message.MessageId ?? '',
      queueName: this.#options.queue.name,
      receiveCount: decoded.receiveCount,
    };
    const ageMs =
      decoded.sentTimestamp === undefined ? undefined : Math.max(0, Date.now() - decoded.sentTimestamp);
    // Only a message received before can have been re-sent already: a first receive costs nothing here.
    if (decoded.receiveCount > 1 && (await this.#isSuperseded(base.messageId))) {
      await this.#settle(entry, () => this.#deleter.delete(entry.receiptHandle));
      return this.#report({ ...base, outcome: 'superseded', reason: 'its copy was already sent' });
    }
    let event: AnyEvent;
    try {
      event = this.#decode(decoded.body);
    } catch (error) {
      if (!(error instanceof InvalidEventError)) throw error;
      const reason = error.message;
      await this.#deadLetter(entry, message, reason);
      return this.#report({ ...base, outcome: 'dead-lettered', type: error.type, reason, error });
    }
    const ids = { ...base, eventId: event.id, type: event.type };
    const handler = this.#options.handlers[event.type] as EventHandler<EventType> | undefined;
    if (!handler) {
      const reason = `no handler for ${event.type} on ${this.#options.queue.name}`;
      await this.#deadLetter(entry, message, reason);
      return this.#report({ ...ids, outcome: 'dead-lettered', reason });
    }
    const parent = extractTrace(decoded.trace, ROOT_CONTEXT);
    const spanOptions = processSpanOptions(
      this.#options.queue.name,
      base.messageId,
      decoded.receiveCount,
      event,
    );
    await tracer.startActiveSpan(spanOptions.name, spanOptions, parent, async (span) => {
      const started = performance.now();
      let failure: unknown;
      try {
        await handler(event, {
          ...base,
          attributes: decoded.attributes,
          deferredCount: decoded.deferredCount,
          failedCount: decoded.failedCount,
        });
      } catch (error) {
        failure = error;
        recordHandlerFailure(span, error);
      }
      const durationMs = performance.now() - started;
      this.#durations.record(durationMs);
      const age = ageMs === undefined ? {} : { ageMs };
      try {
        const record = await this.#afterHandler(entry, decoded, failure);
        this.#report({ ...ids, ...record, durationMs, ...age });
      } catch (settling) {
        // The outcome is reported even when settling throws (a lost delete,
        // SQS away): the handler's failure is not hidden behind the SQS error.
        const reason = `settling failed: ${(settling as Error).message}`;
        this.#report(
          failure === undefined
            ? { ...ids, outcome: 'handled', reason, durationMs, ...age }
            : { ...ids, outcome: 'failed', reason, error: failure, durationMs, ...age },
        );
        throw settling;
      } finally {
        span.end();
      }
    });
  }

  async #afterHandler(
    entry: InFlight,
    decoded: DecodedMessage,
    failure: unknown,
  ): Promise<Pick<MessageRecord, 'outcome' | 'reason' | 'error' | 'delaySeconds' | 'failedCount'>> {
    const { message } = entry;
    if (failure === undefined) {
      // The slot is free once the delete is queued: the next receive need not
      // wait for the batch delete's round trip (close() still waits for it).
      await this.#settle(entry, async () => {
        const deleted = this.#deleter.delete(entry.receiptHandle);
        this.#release(entry);
        await deleted;
      });
      return { outcome: 'handled' };
    }
    const error = failure as Error;
    if (isPermanent(failure)) {
      const reason = `permanent failure: ${error.message}`;
      await this.#deadLetter(entry, message, reason);
      return { outcome: 'dead-lettered', reason, error };
    }
    const maxDeferMs = this.#options.maxDeferMs ?? DEFAULT_MAX_DEFER_MS;
    const later = retryLaterOf(failure);
    if (later) {
      // Coming back later is a wait, not a failure: re-sent with the rule's
      // delay (retry-later.ts), within the same bound as every wait.
      const delayMs = retryLaterDelayMs(later, decoded.deferredCount);
      const waited = await this.#settle(entry, () =>
        deferMessage(this.#options.sqs, this.#target(), message, {
          delayMs,
          reason: later.message,
          maxDeferMs,
          afterSent: this.#markSuperseded(message.MessageId),
        }),
      );
      if (waited.outcome === 'dead-lettered') return { ...waited, error };
      return {
        outcome: later instanceof DeferError ? 'deferred' : 'retry-later',
        delaySeconds: Math.ceil(delayMs / 1000),
        reason: later.message,
        error,
      };
    }
    const backoff = this.#options.backoff ?? DEFAULT_SQS_BACKOFF;
    if (isDependencyUnavailable(failure)) {
      // Waiting out the dependency, with the backoff the failures would get.
      const delaySeconds = fullJitter(decoded.deferredCount, backoff, this.#options.random);
      const reason = `dependency unavailable: ${error.message}`;
      this.#log.warn(
        { err: error, messageId: message.MessageId, delaySeconds },
        'dependency unavailable; will retry',
      );
      const waited = await this.#settle(entry, () =>
        deferMessage(this.#options.sqs, this.#target(), message, {
          delayMs: delaySeconds * 1000,
          reason,
          maxDeferMs,
          afterSent: this.#markSuperseded(message.MessageId),
        }),
      );
      if (waited.outcome === 'dead-lettered') return { ...waited, error };
      return { outcome: 'failed', delaySeconds, reason, error, failedCount: decoded.failedCount };
    }
    const failedCount = decoded.failedCount + 1;
    if (failedCount >= (this.#options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) {
      const reason = `failed ${failedCount} times: ${error.message}`;
      await this.#deadLetter(entry, message, reason);
      return { outcome: 'dead-lettered', reason, error, failedCount };
    }
    const delaySeconds = fullJitter(failedCount - 1, backoff, this.#options.random);
    this.#log.warn(
      { err: error, messageId: message.MessageId, failedCount, delaySeconds },
      'handler failed; will retry',
    );
    await this.#settle(entry, () =>
      resendMessage(
        this.#options.sqs,
        this.#options.queue.url,
        { decoded, receiptHandle: entry.receiptHandle },
        delaySeconds,
        {
          [ATTR_FAILED_COUNT]: String(failedCount),
        },
        this.#markSuperseded(message.MessageId),
      ),
    );
    return { outcome: 'failed', delaySeconds, error, failedCount };
  }

  async #isSuperseded(messageId: string): Promise<boolean> {
    const marks = this.#options.superseded;
    if (!marks || !messageId) return false;
    try {
      return await marks.isMarked(this.#options.queue.name, messageId);
    } catch (error) {
      // Without the marks the message is handled: at worst a second chain, as before them.
      this.#log.warn({ err: error, messageId }, 'superseded marks unreadable; handling the message');
      return false;
    }
  }

  /** Marks the received message superseded once its copy or dead letter is sent (before its delete). */
  #markSuperseded(messageId: string | undefined): () => Promise<void> {
    return async () => {
      const marks = this.#options.superseded;
      if (!marks || !messageId) return;
      await marks.mark(this.#options.queue.name, messageId).catch((error: unknown) => {
        this.#log.warn({ err: error, messageId }, 'could not mark a re-sent message superseded');
      });
    };
  }

  /** Stops the heartbeat for the message, waits out an extension in flight, then runs its final call. */
  /** Sends the message to its DLQ (the original marked superseded once the copy is sent), settling its entry. */
  #deadLetter(entry: InFlight, message: Message, reason: string): Promise<unknown> {
    return this.#settle(entry, () =>
      deadLetter(this.#options.sqs, this.#target(), message, reason, this.#markSuperseded(message.MessageId)),
    );
  }

  async #settle<T>(entry: InFlight, action: () => Promise<T>): Promise<T> {
    entry.settled = true;
    await entry.pending;
    return action();
  }

  #target() {
    return { queueUrl: this.#options.queue.url, dlqUrl: this.#options.queue.dlq.url };
  }

  #report(record: MessageRecord): void {
    if (record.outcome === 'dead-lettered') {
      this.#log.error(
        { messageId: record.messageId, type: record.type, reason: record.reason },
        'dead-lettered',
      );
    }
    signals.message.publish({
      queue: this.#options.queue.logicalName ?? this.#options.queue.name,
      type: record.type,
      outcome: record.outcome,
      durationMs: record.durationMs,
      ageMs: record.ageMs,
    });
    try {
      this.#options.onMessage?.(record);
    } catch (error) {
      this.#log.warn({ err: error }, 'onMessage observer threw');
    }
  }
}
