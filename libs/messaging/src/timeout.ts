/** What `withTimeout` rejects with: named `TimeoutError`, code `ETIMEDOUT`, like a socket's own timeout. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/**
 * `promise`, or a TimeoutError after `ms` ("<what> timed out after … ms"); the
 * timer never outlives it. The promise itself goes on: callers that may see
 * it fail later attach their own catch.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
