import type { Redis } from 'ioredis';

export interface JobStatusChange {
  jobId: string;
  status: 'processing' | 'matched' | 'closed';
  matchCount: number | null;
}

/**
 * Status changes of postings, across processes: whichever process commits a
 * change (the worker on `job.matched.v1`, the API on close) publishes it on
 * Redis; every API process relays it to its SSE clients. One subscriber
 * connection per process, whatever the number of streams.
 */
export class StatusFeed {
  readonly #publisher: Redis;
  readonly #prefix: string;
  #subscriber: Redis | undefined;
  readonly #listeners = new Map<string, Set<(change: JobStatusChange) => void>>();

  constructor(redis: Redis, prefix: string) {
    this.#publisher = redis;
    this.#prefix = `${prefix}:job-status:`;
  }

  async publish(change: JobStatusChange): Promise<void> {
    await this.#publisher.publish(this.#prefix + change.jobId, JSON.stringify(change));
  }

  /** Calls `listener` for each change of the job until the returned function is called. */
  async subscribe(jobId: string, listener: (change: JobStatusChange) => void): Promise<() => Promise<void>> {
    const subscriber = this.#ensureSubscriber();
    let set = this.#listeners.get(jobId);
    if (!set) {
      set = new Set();
      this.#listeners.set(jobId, set);
      await subscriber.subscribe(this.#prefix + jobId);
    }
    set.add(listener);
    return async () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(jobId) === set) {
        this.#listeners.delete(jobId);
        await subscriber.unsubscribe(this.#prefix + jobId).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#subscriber?.quit().catch(() => this.#subscriber?.disconnect());
    this.#subscriber = undefined;
  }

  #ensureSubscriber(): Redis {
    if (!this.#subscriber) {
      this.#subscriber = this.#publisher.duplicate();
      this.#subscriber.on('message', (channel: string, message: string) => {
        const jobId = channel.slice(this.#prefix.length);
        const change = JSON.parse(message) as JobStatusChange;
        for (const listener of this.#listeners.get(jobId) ?? []) listener(change);
      });
    }
    return this.#subscriber;
  }
}
