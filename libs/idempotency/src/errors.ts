/**
 * Another holder runs the work for this key right now. Retryable: a consumer
 * leaves the message for a later delivery, ideally no sooner than
 * `retryAfterMs` (the holder's remaining lease).
 */
export class IdempotencyInProgressError extends Error {
  readonly code = 'IDEMPOTENCY_IN_PROGRESS';
  readonly retryable = true;
  readonly key: string;
  readonly retryAfterMs: number;

  constructor(key: string, retryAfterMs: number) {
    const hint = Math.max(0, Math.ceil(retryAfterMs));
    super(`idempotency key ${key} is being processed by another holder; retry in ${hint} ms`);
    this.name = 'IdempotencyInProgressError';
    this.key = key;
    this.retryAfterMs = hint;
  }
}

/**
 * The key was used before with a different payload. Not retryable: the
 * caller reused a key for another request, which is a bug on its side.
 */
export class IdempotencyConflictError extends Error {
  readonly code = 'IDEMPOTENCY_CONFLICT';
  readonly retryable = false;
  readonly key: string;

  constructor(key: string) {
    super(`idempotency key ${key} was already used with a different payload`);
    this.name = 'IdempotencyConflictError';
    this.key = key;
  }
}

/**
 * This holder's lease expired and another holder claimed the key, so its
 * completion was refused (fenced). Retryable: the next attempt sees the other
 * holder's outcome, so a consumer comes back later (not a failure of its own).
 */
export class IdempotencyLeaseLostError extends Error {
  readonly code = 'IDEMPOTENCY_LEASE_LOST';
  readonly retryable = true;
  readonly key: string;

  constructor(key: string) {
    super(`lost the claim on idempotency key ${key}: its lease expired and another holder took over`);
    this.name = 'IdempotencyLeaseLostError';
    this.key = key;
  }
}
