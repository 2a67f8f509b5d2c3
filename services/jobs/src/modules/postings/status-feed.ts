import { once } from 'node:events';
import { untraced } from '@hireflow/messaging';
import { closeRedis } from '@hireflow/runtime';
import type { Redis } from 'ioredis';

interface ErrorLog {
  error(obj: object, msg: string): void;
}

export interface PostingStatusChange {
  postingId: string;
  status: 'processing' | 'matched' | 'closed';
  matchCount: number | null;
}

/**
 * A change as the public API shows it (the `data` of an `event: status` on
 * GET /v1/jobs/{id}/events) and as it travels on Redis, so that during a
 * rolling deploy an API process of either version relays what a worker of
 * the other published.
 */
export function statusEventData(change: PostingStatusChange) {
  return { jobId: change.postingId, status: change.status, matchCount: change.matchCount };
}

interface Channel {
  listeners: Set<(change: PostingStatusChange) => void>;
  /** Settles once Redis confirmed the SUBSCRIBE; every subscriber awaits it. */
  ready: Promise<unknown>;
}

/**
 * Status changes of postings, across processes: whichever process commits a
 * change (the worker on `job.matched.v1`, the API on close) publishes it on
 * Redis; every API process relays it to its SSE clients. One subscriber
 * connection per process, whatever the number of streams.
 *
 * Publishing is best effort (the change is committed; a lost notice only
 * delays a stream until its next change), so it uses a connection that fails
 * fast instead of queueing while Redis is away: a Redis outage must not hold
 * up a request or an event handler.
 */
export class StatusFeed {
  readonly #redis: Redis;
  readonly #prefix: string;
  #publisher: Redis | undefined;
  #subscriber: Redis | undefined;
  readonly #channels = new Map<string, Channel>();

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = `${prefix}:job-status:`;
  }

  async publish(change: PostingStatusChange): Promise<void> {
    if (!this.#publisher) {
      // Connected outside the trace of the request or event that needed it first.
      this.#publisher = untraced(() =>
        this.#redis.duplicate({
          lazyConnect: false, // the shared client may be lazy; this one must connect on its own
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          commandTimeout: 1000,
        }),
      );
      this.#publisher.on('error', () => undefined);
    }
    const publisher = this.#publisher;
    // Without an offline queue a command fails while connecting: wait a moment for the connection.
    if (publisher.status !== 'ready') await once(publisher, 'ready', { signal: AbortSignal.timeout(1000) });
    await publisher.publish(this.#prefix + change.postingId, JSON.stringify(statusEventData(change)));
  }

  /**
   * Publishes a committed change, best effort: a lost notice only delays an
   * SSE client until the posting's next change, so a failure is logged, never thrown.
   */
  async notify(change: PostingStatusChange, log: ErrorLog): Promise<void> {
    await this.publish(change).catch((error) =>
      log.error({ err: error, postingId: change.postingId }, 'status publish failed'),
    );
  }

  /** Calls `listener` for each change of the posting until the returned function is called. */
  async subscribe(
    postingId: string,
    listener: (change: PostingStatusChange) => void,
  ): Promise<() => Promise<void>> {
    const subscriber = this.#ensureSubscriber();
    let channel = this.#channels.get(postingId);
    if (!channel) {
      const created: Channel = {
        listeners: new Set(),
        ready: subscriber.subscribe(this.#prefix + postingId),
      };
      channel = created;
      this.#channels.set(postingId, created);
      created.ready.catch(() => {
        if (this.#channels.get(postingId) === created) this.#channels.delete(postingId);
      });
    }
    channel.listeners.add(listener);
    const unsubscribe = async () => {
      channel.listeners.delete(listener);
      if (channel.listeners.size === 0 && this.#channels.get(postingId) === channel) {
        this.#channels.delete(postingId);
        await subscriber.unsubscribe(this.#prefix + postingId).catch(() => undefined);
      }
    };
    try {
      await channel.ready;
    } catch (error) {
      await unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.#channels.clear();
    for (const connection of [this.#subscriber, this.#publisher]) {
      if (connection) await closeRedis(connection);
    }
    this.#subscriber = undefined;
    this.#publisher = undefined;
  }

  #ensureSubscriber(): Redis {
    if (!this.#subscriber) {
      this.#subscriber = untraced(() => this.#redis.duplicate({ lazyConnect: false }));
      this.#subscriber.on('error', () => undefined);
      this.#subscriber.on('message', (channel: string, message: string) => {
        const postingId = channel.slice(this.#prefix.length);
        const { status, matchCount } = JSON.parse(message) as ReturnType<typeof statusEventData>;
        const change: PostingStatusChange = { postingId, status, matchCount };
        for (const listener of this.#channels.get(postingId)?.listeners ?? []) listener(change);
      });
    }
    return this.#subscriber;
  }
}
