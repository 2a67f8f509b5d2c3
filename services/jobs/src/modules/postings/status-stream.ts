import { randomUUID } from 'node:crypto';
import { type ConcurrencySlots, HttpProblem } from '@hireflow/runtime';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type PostingStatusChange, type StatusFeed, statusEventData } from './status-feed.ts';

/** What a client waits before reconnecting after the server ended a stream at its maximum life. */
const RECONNECT_HINT_MS = 3000;

export interface StatusStreamsOptions {
  feed: StatusFeed;
  /** At most N open streams per API key, across processes. */
  slots: ConcurrencySlots;
  /** A stream ends after this long, with a `retry:` hint: the client reconnects. */
  maxStreamMs: number;
  /** How often a comment keeps proxies from closing a quiet stream; the key is checked again as often. */
  keepAliveMs: number;
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
    /** Whether the stream's key is still active (looked up afresh); false ends the stream with `event: revoked`. */
    keyStillActive: () => Promise<boolean>,
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
      // Each keep-alive first asks whether the key is still active: a revoked
      // key's stream ends within one interval (docs/security.md, API2).
      let checking = false;
      keepAlive = setInterval(() => {
        if (checking) return;
        checking = true;
        void keyStillActive()
          .then((active) => {
            if (!active) {
              const data = JSON.stringify({ jobId: postingId, reason: 'The API key was revoked' });
              end(`event: revoked\ndata: ${data}\n\n`);
              return;
            }
            if (!ended) raw.write(': keep-alive\n\n');
            void slots.renew(keyId, streamId);
          })
          .finally(() => {
            checking = false;
          });
      }, this.#options.keepAliveMs);
      if (ended) clearInterval(keepAlive);
    } catch (error) {
      request.log.error({ err: error, postingId }, 'status stream failed');
      end();
    }
  }
}
