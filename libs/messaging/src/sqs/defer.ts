import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { ATTR_DEFERRED_COUNT, ATTR_DEFERRED_MS, ATTR_FIRST_SEEN } from '../attributes.ts';
import { type DeadLetterTarget, deadLetter } from './dead-letter.ts';
import { decodeMessage } from './message.ts';
import { MAX_DELAY_SECONDS, resendMessage } from './resend.ts';

/** docs/design.md: a message waits for a dependency at most an hour, then it is dead-lettered. */
export const DEFAULT_MAX_DEFER_MS = 60 * 60 * 1000;
/** Each deferral counts at least this much toward the bound, even one drawn at 0 s: the bound is always reached. */
export const MIN_COUNTED_DEFER_MS = 1000;

export interface DeferOptions {
  delayMs: number;
  reason: string;
  /** Total time spent deferred (the sum of the delays given), after which it is dead-lettered. */
  maxDeferMs?: number;
  /** Runs once the copy or the dead letter is sent, before the delete. */
  afterSent?: () => Promise<void>;
}

/**
 * Waits for a dependency without burning receives: re-sends the message to its
 * own queue with `DelaySeconds` (≤ 900), `deferred-count` + 1 and the delay
 * added to `deferred-ms`, then deletes the received copy.
 *
 * The bound is on the time spent deferred, the sum of the delays given, not
 * on the time since the first deferral: time a message spends queued behind
 * a backlog is not time waiting for its dependency. (Measured from the first
 * deferral, a message deferred once in a brief outage, then an hour in a
 * backlog, was dead-lettered at its next brief outage: docs/chaos.md, the
 * third 10,000-event run.) The last wait is cut to what is left of
 * `maxDeferMs`; once the deferrals have used it, the message is dead-lettered
 * with the reason instead.
 */
export async function deferMessage(
  sqs: SQSClient,
  target: DeadLetterTarget,
  message: Message,
  options: DeferOptions,
): Promise<{ outcome: 'deferred' | 'dead-lettered'; reason: string }> {
  const maxDeferMs = options.maxDeferMs ?? DEFAULT_MAX_DEFER_MS;
  const decoded = decodeMessage(message);
  const count = decoded.deferredCount;
  const waitedMs = Math.max(0, Number(decoded.attributes[ATTR_DEFERRED_MS]) || 0);
  // The last wait is cut to the time left, so a dependency arriving late in
  // the bound still gets its chance; only deferrals that used it all dead-letter.
  const leftMs = maxDeferMs - waitedMs;
  if (leftMs <= 0) {
    const reason = `deferred ${count} times over ${Math.round(waitedMs / 1000)} s: ${options.reason}`;
    await deadLetter(sqs, target, message, reason, options.afterSent);
    return { outcome: 'dead-lettered', reason };
  }
  const delaySeconds = Math.min(
    MAX_DELAY_SECONDS,
    Math.max(0, Math.ceil(Math.min(options.delayMs, leftMs) / 1000)),
  );
  // An earlier version's clock (the first deferral's time) is dropped, not carried.
  const { [ATTR_FIRST_SEEN]: _firstSeen, ...sqsAttributes } = decoded.sqsAttributes;
  await resendMessage(
    sqs,
    target.queueUrl,
    { decoded: { ...decoded, sqsAttributes }, receiptHandle: message.ReceiptHandle },
    delaySeconds,
    {
      [ATTR_DEFERRED_COUNT]: String(count + 1),
      [ATTR_DEFERRED_MS]: String(waitedMs + Math.max(MIN_COUNTED_DEFER_MS, delaySeconds * 1000)),
    },
    options.afterSent,
  );
  return { outcome: 'deferred', reason: options.reason };
}
