/**
 * Polls `check` until it returns a value other than undefined/false, or fails
 * after `timeoutMs` with the last error or value in the message. Tests wait
 * on conditions with a deadline, never on sleeps.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const interval = options.intervalMs ?? 25;
  let last: unknown;
  while (true) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(
        `${options.message ?? 'condition not met'} within ${options.timeoutMs ?? 10_000} ms (last: ${detail})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
