import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JobStatusChange, StatusFeed } from './status-feed.ts';

const KEEP_ALIVE_MS = 15_000;

/**
 * The Server-Sent Events streams of posting statuses one API process holds:
 * each sends the status now, then every change the feed relays. Ended when
 * the client goes or the server closes (`endAll`), so shutdown is not held
 * up by them.
 */
export class StatusStreams {
  readonly #feed: StatusFeed;
  readonly #open = new Set<() => void>();

  constructor(feed: StatusFeed) {
    this.#feed = feed;
  }

  endAll(): void {
    for (const end of [...this.#open]) end();
  }

  /** Takes over the reply and streams the posting's status until the client leaves. */
  async stream(
    request: FastifyRequest,
    reply: FastifyReply,
    jobId: string,
    readCurrent: () => Promise<JobStatusChange | null>,
  ): Promise<void> {
    reply.hijack();
    const raw = reply.raw;
    // Registered before any await: a client gone while we subscribe must
    // still release its subscription, and shutdown must end every stream.
    let keepAlive: NodeJS.Timeout | undefined;
    let unsubscribe: (() => Promise<void>) | undefined;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.#open.delete(end);
      clearInterval(keepAlive);
      void unsubscribe?.();
      raw.end();
    };
    this.#open.add(end);
    request.raw.once('close', end);

    let sequence = 0;
    const send = (change: JobStatusChange) => {
      if (!ended) raw.write(`id: ${++sequence}\nevent: status\ndata: ${JSON.stringify(change)}\n\n`);
    };
    try {
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // Subscribe first, then read the current state: a change committed in
      // between is sent (perhaps twice, harmlessly), never missed.
      unsubscribe = await this.#feed.subscribe(jobId, send);
      if (ended) {
        await unsubscribe();
        return;
      }
      const current = await readCurrent();
      if (current) send(current);
      keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      if (ended) clearInterval(keepAlive);
    } catch (error) {
      request.log.error({ err: error, jobId }, 'status stream failed');
      end();
    }
  }
}
