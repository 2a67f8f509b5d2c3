import { randomUUID } from 'node:crypto';
import { type ConcurrencySlots, HttpProblem } from '@hireflow/runtime';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type PostingStatusChange, type StatusFeed, statusEventData } from './status-feed.ts';

const KEEP_ALIVE_MS = 15_000;
/** What a client waits before reconnecting after the server ended a stream at its maximum life. */
const RECONNECT_HINT_MS = 3000;

export interface StatusStreamsOptions {
  feed: StatusFeed;
  /** At most N open streams per API key, across processes. */
  slots: ConcurrencySlots;
  /** A stream ends after this long, with a `retry:` hint: the client reconnects. */
  maxStreamMs: number;
}

/**
 * The Server-Sent Events streams of posting statuses one API process holds:
 * each sends the status now, then every change the feed relays. A key holds
 * a bounded number of them (a slot, renewed while the stream lives), each
 * for a bounded time. Ended when the client goes, at its maximum life, or
 * when the server closes (`endAll`), so shutdown is not held up by them.
 */
export class StatusStreams {
  readonly #options: StatusStreamsOptions;
  readonly #open = new Set<() => void>();

  constructor(options: StatusStreamsOptions) {
    this.#options = options;
  }

  endAll(): void {
    for (const end of [...this.#open]) end();
  }

  /** Takes over the reply and streams the posting's status until the client leaves. */
  async stream(
    request: FastifyRequest,
    reply: FastifyReply,
    target: { postingId: string; keyId: string },
    readCurrent: () => Promise<PostingStatusChange | null>,
  ): Promise<void> {
    const { postingId, keyId } = target;
    const { slots, feed } = this.#options;
    const streamId = randomUUID();
    if (!(await slots.acquire(keyId, streamId))) {
      throw new HttpProblem(
        429,
        'TOO_MANY_STREAMS',
        'This API key holds as many open status streams as it may; close one first',
        { headers: { 'retry-after': '5' } },
      );
    }
    reply.hijack();
    const raw = reply.raw;
    // Registered before any await: a client gone while we subscribe must
    // still release its subscription, and shutdown must end every stream.
    let keepAlive: NodeJS.Timeout | undefined;
    let unsubscribe: (() => Promise<void>) | undefined;
    let ended = false;
    const end = (hint?: string) => {
      if (ended) return;
      ended = true;
      this.#open.delete(endNow);
      clearInterval(keepAlive);
      clearTimeout(lifetime);
      void unsubscribe?.();
      void slots.release(keyId, streamId);
      raw.end(hint);
    };
    const endNow = () => end();
    this.#open.add(endNow);
    request.raw.once('close', endNow);
    const lifetime = setTimeout(() => end(`retry: ${RECONNECT_HINT_MS}\n\n`), this.#options.maxStreamMs);

    let sequence = 0;
    const send = (change: PostingStatusChange) => {
      const data = JSON.stringify(statusEventData(change));
      if (!ended) raw.write(`id: ${++sequence}\nevent: status\ndata: ${data}\n\n`);
    };
    try {
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store, no-transform',
        'x-content-type-options': 'nosniff',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // Subscribe first, then read the current state: a change committed in
      // between is sent (perhaps twice, harmlessly), never missed.
      unsubscribe = await feed.subscribe(postingId, send);
      if (ended) {
        await unsubscribe();
        return;
      }
      const current = await readCurrent();
      if (current) send(current);
      keepAlive = setInterval(() => {
        raw.write(': keep-alive\n\n');
        void slots.renew(keyId, streamId);
      }, KEEP_ALIVE_MS);
      if (ended) clearInterval(keepAlive);
    } catch (error) {
      request.log.error({ err: error, postingId }, 'status stream failed');
      end();
    }
  }
}
