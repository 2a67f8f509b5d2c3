/**
 * `promise`, or a rejection after `ms` ("<what> timed out after … ms"); the
 * timer never outlives it. The promise itself goes on: callers that may see
 * it fail later attach their own catch.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
