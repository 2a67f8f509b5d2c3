// Typed outcomes a handler can throw. Each has a stable `code`; anything else
// thrown is a transient failure, retried with backoff.

export class MessagingError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * Retrying cannot help (bad input, a corrupt image): dead-letter at once.
 * Named `UnrecoverableError` too, so BullMQ treats it as its own and skips retries.
 */
export class PermanentError extends MessagingError {
  constructor(message: string, options?: ErrorOptions) {
    super('PERMANENT_FAILURE', message, options);
    this.name = 'UnrecoverableError';
  }
}

/**
 * Try again after `delayMs`. SQS: the message is re-sent with that delay as a
 * deferral is (no receive burnt), within the same `maxDeferMs` bound; the
 * outcome is reported as `retry-later`.
 */
export class RetryLaterError extends MessagingError {
  readonly delayMs: number;

  constructor(delayMs: number, message = `retry in ${delayMs} ms`, options?: ErrorOptions) {
    super('RETRY_LATER', message, options);
    this.delayMs = delayMs;
  }
}

/**
 * The handler needs state it has not seen yet (an event that will arrive):
 * the message is re-sent to its own queue with a delay, which burns no
 * receive, and dead-lettered once it has waited longer than the consumer's
 * `maxDeferMs` in total.
 */
export class DeferError extends MessagingError {
  readonly delayMs: number;

  constructor(delayMs: number, reason: string, options?: ErrorOptions) {
    super('DEFERRED', reason, options);
    this.delayMs = delayMs;
  }
}

export function isPermanent(error: unknown): boolean {
  return error instanceof Error && (error instanceof PermanentError || error.name === 'UnrecoverableError');
}

/**
 * The delay a handler's error asks for, when it asks to be retried later:
 * a RetryLaterError, or any error marked `retryable` with a `retryAfterMs`
 * (such as @hireflow/idempotency's "in progress" error).
 */
export function retryAfterMs(error: unknown): number | undefined {
  if (error instanceof RetryLaterError) return error.delayMs;
  const marked = error as { retryable?: unknown; retryAfterMs?: unknown } | null;
  if (marked && marked.retryable === true && typeof marked.retryAfterMs === 'number')
    return marked.retryAfterMs;
  return undefined;
}
