import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { ATTR_DEFERRED_COUNT, ATTR_FIRST_SEEN } from '../attributes.ts';
import { type DeadLetterTarget, deadLetter } from './dead-letter.ts';
import { decodeMessage } from './message.ts';
import { MAX_DELAY_SECONDS, resendMessage } from './resend.ts';

/** docs/design.md: a message waits for a dependency at most an hour, then it is dead-lettered. */
export const DEFAULT_MAX_DEFER_MS = 60 * 60 * 1000;

export interface DeferOptions {
  delayMs: number;
  reason: string;
  /** Total wait since a consumer first deferred the message, after which it is dead-lettered. */
  maxDeferMs?: number;
  now?: number;
  /** Runs once the copy or the dead letter is sent, before the delete. */
  afterSent?: () => Promise<void>;
}

/**
 * Waits for a dependency without burning receives: re-sends the message to its
 * own queue with `DelaySeconds` (≤ 900) and a `deferred-count` / `first-seen-at`
 * attribute, then deletes the received copy. The last wait is cut to what is
 * left of `maxDeferMs`; once the total wait has reached it, dead-letters the
 * message with the reason instead.
 */
export async function deferMessage(
  sqs: SQSClient,
  target: DeadLetterTarget,
  message: Message,
  options: DeferOptions,
): Promise<{ outcome: 'deferred' | 'dead-lettered'; reason: string }> {
  const now = options.now ?? Date.now();
  const maxDeferMs = options.maxDeferMs ?? DEFAULT_MAX_DEFER_MS;
  const decoded = decodeMessage(message);
  // The wait starts when a consumer first looked at the message, not when it
  // was sent: after a backlog or an outage longer than the bound, a message
  // seen for the first time still gets its whole wait.
  const firstSeen = Number(decoded.attributes[ATTR_FIRST_SEEN]) || now;
  const count = decoded.deferredCount;
  const waitedMs = now - firstSeen;
  // The last wait is cut to the time left, so a dependency arriving late in
  // the bound still gets its chance; only a wait that used it all dead-letters.
  const leftMs = maxDeferMs - waitedMs;
  const delaySeconds = Math.min(
    MAX_DELAY_SECONDS,
    Math.max(0, Math.ceil(Math.min(options.delayMs, leftMs) / 1000)),
  );
  if (leftMs <= 0) {
    const waited = Math.round((now - firstSeen) / 1000);
    const reason = `deferred ${count} times over ${waited} s: ${options.reason}`;
    await deadLetter(sqs, target, message, reason, options.afterSent);
    return { outcome: 'dead-lettered', reason };
  }
  await resendMessage(
    sqs,
    target.queueUrl,
    { decoded, receiptHandle: message.ReceiptHandle },
    delaySeconds,
    {
      [ATTR_DEFERRED_COUNT]: String(count + 1),
      [ATTR_FIRST_SEEN]: String(firstSeen),
    },
    options.afterSent,
  );
  return { outcome: 'deferred', reason: options.reason };
}
