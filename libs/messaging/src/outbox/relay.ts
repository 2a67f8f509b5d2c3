import type { AnyEvent } from '@hireflow/contracts';
import pg from 'pg';
import { fullJitter } from '../backoff.ts';
import { isDependencyUnavailable } from '../errors.ts';
import { DEFAULT_EVENT_LOG_RETENTION_MS, pruneEventLog } from '../event-log/prune.ts';
import { type Logger, resolveLogger } from '../logger.ts';
import { untraced } from '../quiet.ts';
import { type PublishResult, SNS_MAX_BATCH, type SnsPublisher } from '../sns/publisher.ts';
import type { SqlDatabase } from '../sql.ts';
import { Wakeup } from '../wake.ts';
import { DEFAULT_OUTBOX_RETENTION_MS, pruneOutbox } from './prune.ts';
import {
  claimPending,
  commitClaim,
  listenForCommits,
  markAndCommit,
  type PendingRow,
  releaseSleepLock,
  rollbackClaim,
  takeSleepLock,
} from './store.ts';

export const DEFAULT_RELAY_BATCH_SIZE = 100;
export const DEFAULT_RELAY_POLL_INTERVAL_MS = 1000;
export const DEFAULT_RELAY_CONCURRENCY = 1;
export const DEFAULT_RELAY_LINGER_MS = 3;
export const DEFAULT_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** The longest wait of the relay while Postgres or SNS is unreachable (docs/messaging.md). */
export const RELAY_UNAVAILABLE_CAP_MS = 30_000;

export interface OutboxRelayOptions {
  /** The service's Database (@hireflow/db): its pool, its root scope, its URL. */
  orm: SqlDatabase;
  publisher: SnsPublisher;
  /** Logical topic (as on the row, e.g. `jobs-events`) → topic ARN. */
  topicArns: Record<string, string>;
  /** Rows claimed per transaction; published in PublishBatch calls of up to 10. */
  batchSize?: number;
  /**
   * Claim loops per relay (default 1). More loops claim while a batch is being
   * published and marked (SKIP LOCKED keeps their rows disjoint), but under a
   * stream of commits they split it into more, smaller batches, each with its
   * own transaction, PublishBatch and SQS deliveries: one loop moved more
   * events end to end in the messaging bench (docs/performance.md, run 5).
   */
  concurrency?: number;
  /**
   * After a batch of 2 or more rows but fewer than `batchSize` (rows are
   * arriving faster than one a batch), wait this long before the next claim
   * so it takes more of them at once (default 3 ms; 0 claims at once). A lone
   * row, as at a steady low rate, is never held up.
   */
  lingerMs?: number;
  /** Fallback poll when no NOTIFY arrives (missed while reconnecting, or LISTEN off). */
  pollIntervalMs?: number;
  /** LISTEN for commits on a dedicated connection (default true). */
  listen?: boolean;
  /** How often the relay prunes sent rows and the event log, and how long it keeps them. 0 disables pruning. */
  pruneIntervalMs?: number;
  retentionMs?: number;
  /** How long the event log keeps what was published, for replays (default 365 days). */
  eventLogRetentionMs?: number;
  logger?: Logger;
}

export interface RelayOutcome {
  claimed: number;
  published: number;
  failed: number;
}

/**
 * Publishes committed outbox rows to SNS and marks them sent, appending them
 * to the event log in the same statement (runs in the worker role). Rows are claimed with `FOR UPDATE SKIP LOCKED` in a
 * transaction that stays open until they are marked, so several relays share
 * the table and never publish a row concurrently. A crash after publishing and
 * before the commit publishes those rows again: consumers are idempotent.
 */
export class OutboxRelay {
  readonly #options: Required<Omit<OutboxRelayOptions, 'logger'>>;
  readonly #log: Logger;
  readonly #wake = new Wakeup();
  #listener: pg.Client | undefined;
  #loop: Promise<void> | undefined;
  #closing = false;
  #lastPrune = Date.now();

  constructor(options: OutboxRelayOptions) {
    this.#options = {
      batchSize: DEFAULT_RELAY_BATCH_SIZE,
      concurrency: DEFAULT_RELAY_CONCURRENCY,
      pollIntervalMs: DEFAULT_RELAY_POLL_INTERVAL_MS,
      listen: true,
      lingerMs: DEFAULT_RELAY_LINGER_MS,
      pruneIntervalMs: DEFAULT_PRUNE_INTERVAL_MS,
      retentionMs: DEFAULT_OUTBOX_RETENTION_MS,
      eventLogRetentionMs: DEFAULT_EVENT_LOG_RETENTION_MS,
      ...options,
    };
    this.#log = resolveLogger(options.logger, 'outbox-relay');
  }

  async start(): Promise<void> {
    if (this.#loop) return;
    this.#closing = false;
    // The relay's polling, LISTEN and pruning are untraced (quiet when idle);
    // each row it publishes continues the trace of the transaction that wrote it.
    await untraced(async () => {
      if (this.#options.listen) await this.#listen();
      this.#loop = Promise.all(Array.from({ length: this.#options.concurrency }, () => this.#run())).then(
        () => undefined,
      );
    });
  }

  /** Stops after the batch in progress is published and marked. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#wake.signal();
    await this.#loop;
    this.#loop = undefined;
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /**
   * Claims, publishes and marks one batch; exposed for tests and one-shot
   * runs. Two round trips around the publish (see `claimPending`): a row is
   * marked sent by the commit that follows its successful publish, never
   * before. On any error the transaction is rolled back, or the connection
   * dropped when even that fails, and the claimed rows are pending again.
   */
  async relayOnce(): Promise<RelayOutcome> {
    const pool = this.#pool();
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const rows = await claimPending(client, this.#options.batchSize);
      if (rows.length === 0) {
        await commitClaim(client);
        return { claimed: 0, published: 0, failed: 0 };
      }
      const results = await Promise.all(this.#chunks(rows).map((chunk) => this.#publish(chunk)));
      const sent = results.flatMap((r) => r.sent);
      const failures = results.flatMap((r) => r.failures);
      await markAndCommit(client, sent, failures);
      if (failures.length > 0)
        this.#log.warn({ failed: failures.length }, 'outbox rows not published; will retry');
      return { claimed: rows.length, published: sent.length, failed: failures.length };
    } catch (error) {
      await rollbackClaim(client).catch((rollback: Error) => {
        broken = rollback;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** The Database's pg pool (the relay's batches hold one of its connections each). */
  #pool(): pg.Pool {
    return this.#options.orm.pool;
  }

  /**
   * Rows grouped by topic in id order, in PublishBatch-sized chunks: at most
   * 10 entries and at most SNS_MAX_BATCH_BYTES in all (AWS refuses a whole
   * batch over 256 KiB; the emulator does not check).
   */
  #chunks(rows: PendingRow[]): PendingRow[][] {
    const byTopic = new Map<string, PendingRow[]>();
    for (const row of rows) {
      const group = byTopic.get(row.topic);
      if (group) group.push(row);
      else byTopic.set(row.topic, [row]);
    }
    const chunks: PendingRow[][] = [];
    for (const group of byTopic.values()) {
      let chunk: PendingRow[] = [];
      let bytes = 0;
      for (const row of group) {
        const size = entryBytes(row);
        if (chunk.length > 0 && (chunk.length === SNS_MAX_BATCH || bytes + size > SNS_MAX_BATCH_BYTES)) {
          chunks.push(chunk);
          chunk = [];
          bytes = 0;
        }
        chunk.push(row);
        bytes += size;
      }
      if (chunk.length > 0) chunks.push(chunk);
    }
    return chunks;
  }

  async #publish(
    chunk: PendingRow[],
  ): Promise<{ sent: string[]; failures: { id: string; error: string }[] }> {
    const topic = chunk[0]!.topic;
    const arn = this.#options.topicArns[topic];
    if (!arn)
      return { sent: [], failures: chunk.map((r) => ({ id: r.id, error: `no ARN for topic ${topic}` })) };
    const items = chunk.map((row) => ({
      event: JSON.parse(row.payload) as AnyEvent,
      json: row.payload,
      trace: {
        ...(row.traceparent ? { traceparent: row.traceparent } : {}),
        ...(row.tracestate ? { tracestate: row.tracestate } : {}),
        ...(row.baggage ? { baggage: row.baggage } : {}),
      },
    }));
    const result: PublishResult = await this.#options.publisher.publishBatch(arn, items);
    const idOf = new Map(items.map((item, i) => [item.event.id, chunk[i]!.id]));
    return {
      sent: result.published.map((eventId) => idOf.get(eventId)!),
      failures: result.failed.map((f) => ({ id: idOf.get(f.eventId)!, error: `${f.code}: ${f.message}` })),
    };
  }

  async #run(): Promise<void> {
    let unavailable = 0;
    while (!this.#closing) {
      let outcome: RelayOutcome | undefined;
      try {
        outcome = await this.relayOnce();
        unavailable = 0;
      } catch (error) {
        if (!isDependencyUnavailable(error)) this.#log.error({ err: error }, 'outbox relay batch failed');
        else {
          // Postgres (or SNS) away: nothing is given up, the rows stay pending;
          // wait with backoff (at most 30 s) instead of failing every poll.
          const delayMs = Math.max(
            this.#options.pollIntervalMs,
            fullJitter(unavailable++, { base: this.#options.pollIntervalMs, cap: RELAY_UNAVAILABLE_CAP_MS }),
          );
          this.#log.warn({ err: error, delayMs }, 'outbox relay: dependency unavailable; waiting');
          if (!this.#closing) await this.#wake.wait(delayMs);
          continue;
        }
      }
      if (this.#closing) break;
      await this.#maybePrune();
      // A clean batch means more may be coming: go again at once. Producers
      // do not NOTIFY while no relay sleeps, so only an empty claim ends this.
      if (outcome && outcome.claimed > 0 && outcome.failed === 0) {
        const { lingerMs, batchSize } = this.#options;
        if (lingerMs > 0 && outcome.claimed >= 2 && outcome.claimed < batchSize)
          await this.#wake.wait(lingerMs);
        continue;
      }
      await this.#sleep(outcome !== undefined && outcome.failed === 0);
    }
  }

  /**
   * Waits for a NOTIFY or the poll. Producers NOTIFY only while a relay
   * holds OUTBOX_RELAY_ASLEEP_LOCK (NOTIFY serialises their commits), so the
   * relay takes it first: that waits for the transactions writing rows right
   * now (they hold it shared until they end), and one more claim then sees
   * their rows. Without a LISTEN connection, or when the lock is not had
   * within the poll interval (another relay sleeps on it), it just waits.
   */
  async #sleep(idle: boolean): Promise<void> {
    const listener = this.#listener;
    const poll = this.#options.pollIntervalMs;
    if (!idle || !listener) return this.#wake.wait(poll);
    try {
      await takeSleepLock(listener);
    } catch {
      return this.#wake.wait(poll);
    }
    try {
      const outcome = await this.relayOnce().catch((error: unknown) => {
        this.#log.error({ err: error }, 'outbox relay batch failed');
        return undefined;
      });
      if (outcome?.claimed === 0 && !this.#closing) await this.#wake.wait(poll);
    } finally {
      // Not awaited: the claim that follows need not wait for it, and the next
      // lock queues behind it on the same connection. Lost with its connection
      // otherwise: the producers stop NOTIFYing and the relay polls.
      releaseSleepLock(listener).catch(() => undefined);
    }
  }

  async #maybePrune(): Promise<void> {
    const { pruneIntervalMs, retentionMs, eventLogRetentionMs, orm } = this.#options;
    if (pruneIntervalMs <= 0 || Date.now() - this.#lastPrune < pruneIntervalMs) return;
    this.#lastPrune = Date.now();
    try {
      const deleted = await pruneOutbox(orm.em.fork(), { olderThanMs: retentionMs });
      if (deleted > 0) this.#log.info({ deleted }, 'pruned sent outbox rows');
      const logged = await pruneEventLog(orm.em.fork(), {
        olderThanMs: eventLogRetentionMs,
      });
      if (logged > 0) this.#log.info({ deleted: logged }, 'pruned event log entries past their retention');
    } catch (error) {
      this.#log.error({ err: error }, 'outbox prune failed');
    }
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.orm.url });
    client.on('notification', () => this.#wake.signal());
    client.on('error', (error) => {
      // The poll keeps the relay going; reconnect in the background.
      this.#log.warn({ err: error }, 'outbox LISTEN connection lost; polling until it is back');
      if (this.#listener === client) this.#listener = undefined;
      client.end().catch(() => undefined);
      if (!this.#closing) setTimeout(() => this.#relisten(), this.#options.pollIntervalMs).unref();
    });
    await client.connect();
    // A relay waits at most a poll interval for the sleep lock (another relay may hold it).
    await listenForCommits(client, this.#options.pollIntervalMs);
    if (this.#closing) {
      // close() ran while this (re)connect was under way: it cannot see this client.
      await client.end().catch(() => undefined);
      return;
    }
    this.#listener = client;
  }

  #relisten(): void {
    if (this.#closing || this.#listener) return;
    this.#listen()
      .then(() => this.#wake.signal())
      .catch((error) => {
        this.#log.warn({ err: error }, 'outbox LISTEN reconnect failed');
        if (!this.#closing) setTimeout(() => this.#relisten(), this.#options.pollIntervalMs).unref();
      });
  }
}

/** AWS's limit for a whole PublishBatch request is 256 KiB; keep a margin for attributes and framing. */
export const SNS_MAX_BATCH_BYTES = 240 * 1024;

/** Bytes an outbox row takes in a PublishBatch entry (message, trace attributes, a margin). */
function entryBytes(row: PendingRow): number {
  const payload = row.payload;
  const trace = (row.traceparent?.length ?? 0) + (row.tracestate?.length ?? 0) + (row.baggage?.length ?? 0);
  return Buffer.byteLength(payload) + trace + 512;
}
