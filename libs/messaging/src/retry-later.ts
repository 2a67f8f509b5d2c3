// "Another worker holds this, or what it needs has not arrived: come back
// later." One rule for both runtimes: a handler or a processor throws
// `retryLater(reason, afterMs?)`; the SQS consumer re-sends the message with
// the delay (no receive burnt, not a failure, within `maxDeferMs`) and the
// BullMQ worker moves the task to delayed (not an attempt, within
// `maxRetryLaters`). The delay is decided here, once.
import { MessagingError } from './errors.ts';

/** The first wait of a retry-later that asks for no delay; each wait after it doubles. */
export const RETRY_LATER_BASE_MS = 1000;
/** The longest wait of a retry-later that asks for no delay. */
export const RETRY_LATER_CAP_MS = 60_000;
/** No wait is shorter, so a holder whose lease just ran out is not polled in a tight loop. */
export const RETRY_LATER_MIN_MS = 250;

export interface RetryLaterOptions extends ErrorOptions {
  /** The delay asked for, used as it is. Without it the rule decides (`retryLaterDelayMs`). */
  afterMs?: number | undefined;
  /**
   * A bound on the rule's delay: when what is waited for will be over at the
   * latest (another holder's remaining lease).
   */
  notAfterMs?: number | undefined;
}

/**
 * Come back later: not a failure, not an attempt. Throw it from an SQS
 * handler or a BullMQ processor (`throw retryLater(…)`).
 */
export class RetryLaterError extends MessagingError {
  readonly afterMs: number | undefined;
  readonly notAfterMs: number | undefined;

  constructor(reason: string, options: RetryLaterOptions = {}, code = 'RETRY_LATER') {
    const { afterMs, notAfterMs, ...errorOptions } = options;
    super(code, reason, errorOptions);
    this.afterMs = afterMs;
    this.notAfterMs = notAfterMs;
  }
}

/**
 * Waiting for state an event will bring (a `match.found.v1` before its
 * candidate): a retry-later after `delayMs`, reported as `deferred` and shown
 * as an event on the span, not as an error.
 */
export class DeferError extends RetryLaterError {
  readonly delayMs: number;

  constructor(delayMs: number, reason: string, options?: ErrorOptions) {
    super(reason, { ...options, afterMs: delayMs }, 'DEFERRED');
    this.delayMs = delayMs;
  }
}

/** `throw retryLater('held by another delivery')`: the rule picks the delay; `afterMs` overrides it. */
export function retryLater(reason: string, afterMs?: number): RetryLaterError {
  return new RetryLaterError(reason, { afterMs });
}

/**
 * What a thrown error asks for, if it asks to come back later: a
 * RetryLaterError, or any error marked `retryable: true` (another holder runs
 * or took over the work: @hireflow/idempotency's "in progress" and "lease
 * lost"), whose `retryAfterMs`, when it has one, bounds the wait.
 */
export function retryLaterOf(error: unknown): RetryLaterError | undefined {
  if (error instanceof RetryLaterError) return error;
  const marked = error as { retryable?: unknown; retryAfterMs?: unknown; message?: unknown } | null;
  if (!marked || typeof marked !== 'object' || marked.retryable !== true) return undefined;
  const notAfterMs = typeof marked.retryAfterMs === 'number' ? marked.retryAfterMs : undefined;
  return new RetryLaterError(String(marked.message ?? 'held elsewhere'), { notAfterMs, cause: error });
}

/**
 * The rule: the delay asked for; otherwise 1 s, doubling with each wait so
 * far (`waits`), at most a minute and never past `notAfterMs`, never below
 * 250 ms. A holder usually finishes within the first wait; one that died is
 * taken over once its lease ends, so waiting longer than that helps nobody.
 */
export function retryLaterDelayMs(later: RetryLaterError, waits: number): number {
  if (later.afterMs !== undefined) return Math.max(0, later.afterMs);
  const doubling = RETRY_LATER_BASE_MS * 2 ** Math.min(Math.max(0, waits), 20);
  const bound = Math.min(RETRY_LATER_CAP_MS, later.notAfterMs ?? RETRY_LATER_CAP_MS);
  return Math.max(RETRY_LATER_MIN_MS, Math.min(doubling, bound));
}
