// Typed outcomes a handler can throw. Each has a stable `code`; anything else
// thrown is a transient failure, retried with backoff. Coming back later
// (RetryLaterError, DeferError) is retry-later.ts.

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

export function isPermanent(error: unknown): boolean {
  return error instanceof Error && (error instanceof PermanentError || error.name === 'UnrecoverableError');
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
