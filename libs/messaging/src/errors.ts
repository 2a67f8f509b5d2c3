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

/** Socket errors of a peer that is down, restarting or unreachable. */
const UNAVAILABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * Postgres SQLSTATEs of a server going away or not there yet: admin or crash
 * shutdown, cannot connect now (starting up, shutting down, recovering), too
 * many connections. Class 08 (connection exception) is matched as a class.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Errors that carry no code: node-postgres' lost connections, ioredis' closed one. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|not queryable|Connection is closed|timeout exceeded when trying to connect/i;

/**
 * The failure says a dependency (Postgres, Redis, an AWS endpoint) could not
 * be reached or went away mid-call, not that anything is wrong with the
 * message: the consumer waits for the dependency (a deferral, bounded by
 * `maxDeferMs`) instead of counting it toward the message's attempts. Reads
 * `code`, `sqlState` (MikroORM's exceptions copy the driver's) and the
 * message, through the `cause` chain; a timeout from `withTimeout` has code
 * `ETIMEDOUT`.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const { code, sqlState } = current as { code?: unknown; sqlState?: unknown };
    for (const state of [code, sqlState]) {
      if (typeof state !== 'string') continue;
      if (UNAVAILABLE_CODES.has(state) || UNAVAILABLE_SQLSTATES.has(state)) return true;
      if (/^08[0-9A-Z]{3}$/.test(state)) return true;
    }
    if (UNAVAILABLE_MESSAGES.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
