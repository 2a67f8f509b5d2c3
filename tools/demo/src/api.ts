// What the demo needs besides the public API's client (@hireflow/client).

export class DemoError extends Error {}

/** Asks `check` every `everyMs` until it returns a value, or `undefined` once `timeoutMs` has passed. */
export async function poll<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
