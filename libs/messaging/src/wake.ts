/**
 * A sleep that something else can cut short: the relay's loops wait for a
 * NOTIFY or their poll interval, the consumer for free capacity or a stop.
 * A signal with nobody waiting is kept for the next wait, so none is lost.
 */
export class Wakeup {
  readonly #waiters = new Set<() => void>();
  #signalled = false;

  /** Wakes every current wait (or, if none, the next one). */
  signal(): void {
    if (this.#waiters.size === 0) {
      this.#signalled = true;
      return;
    }
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves on `signal()` or after `timeoutMs`, whichever comes first. */
  wait(timeoutMs: number): Promise<void> {
    if (this.#signalled) {
      this.#signalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.#waiters.add(wake);
    });
  }
}
