// Test helpers shared by every service's tests: await what became of a
// message instead of sleeping (after message-queue-toolkit's handler spies).
import type { MessageObserver, MessageOutcome, MessageRecord } from './sqs/types.ts';

export interface MessageMatch {
  eventId?: string;
  messageId?: string;
  type?: string;
  outcome?: MessageOutcome;
}

interface Waiter {
  /** Re-run on every record; a value other than undefined settles the wait. */
  check(): unknown;
  resolve(value: unknown): void;
}

function matches(record: MessageRecord, match: MessageMatch): boolean {
  return (
    (match.eventId === undefined || record.eventId === match.eventId) &&
    (match.messageId === undefined || record.messageId === match.messageId) &&
    (match.type === undefined || record.type === match.type) &&
    (match.outcome === undefined || record.outcome === match.outcome)
  );
}

/**
 * Records every message outcome of the consumers it is given to
 * (`onMessage: spy.observer`) and resolves waits on past or future ones:
 * `await spy.waitForMessage({ eventId, outcome: 'handled' })`.
 */
export class HandlerSpy {
  readonly records: MessageRecord[] = [];
  #waiters = new Set<Waiter>();

  readonly observer: MessageObserver = (record) => {
    this.records.push(record);
    for (const waiter of this.#waiters) {
      const value = waiter.check();
      if (value !== undefined) waiter.resolve(value);
    }
  };

  /** Every record matching, in arrival order. */
  all(match: MessageMatch = {}): MessageRecord[] {
    return this.records.filter((r) => matches(r, match));
  }

  /** The first record that matches, already seen or yet to come; rejects after `timeoutMs`. */
  waitForMessage(match: MessageMatch, timeoutMs = 15_000): Promise<MessageRecord> {
    return this.#wait(() => this.records.find((r) => matches(r, match)), timeoutMs, JSON.stringify(match));
  }

  waitForHandled(eventId: string, timeoutMs?: number): Promise<MessageRecord> {
    return this.waitForMessage({ eventId, outcome: 'handled' }, timeoutMs);
  }

  waitForDeadLettered(match: Omit<MessageMatch, 'outcome'>, timeoutMs?: number): Promise<MessageRecord> {
    return this.waitForMessage({ ...match, outcome: 'dead-lettered' }, timeoutMs);
  }

  /** Resolves once at least `count` records match (e.g. two failures of one event). */
  waitForCount(match: MessageMatch, count: number, timeoutMs = 15_000): Promise<MessageRecord[]> {
    return this.#wait(
      () => {
        const found = this.all(match);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      `${count} × ${JSON.stringify(match)}`,
    );
  }

  #wait<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const now = check();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        check,
        resolve: (value) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve(value as T);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const seen = this.records.map((r) => `${r.eventId ?? r.messageId}:${r.outcome}`).join(', ');
        reject(new Error(`no ${what} within ${timeoutMs} ms (seen: ${seen || 'none'})`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }
}
