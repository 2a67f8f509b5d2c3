import type { SQSClient } from '@aws-sdk/client-sqs';
import type { EventType, ServiceName } from '@hireflow/contracts';
import type { EventLogPage, LoggedEvent } from '@hireflow/messaging';
import { type CheckpointFile, checkpointMismatch, type ReplayState } from './checkpoint.ts';
import { type Clock, Pacer, systemClock } from './pacer.ts';
import { ReplayInputError, type ReplayPlan } from './plan.ts';
import { batchesOf, type SendOptions, sendBatch } from './sender.ts';
import type { EventLogSource } from './source.ts';

export const DEFAULT_REPLAY_RATE = 500;
export const DEFAULT_REPLAY_PAGE = 500;
export const DEFAULT_REPLAY_CONCURRENCY = 4;

export interface ReplayOptions {
  sqs: SQSClient;
  /** The target queue: its full name (with the topology prefix) and URL. Never a topic. */
  queue: { name: string; url: string };
  plan: ReplayPlan;
  /** A log per producer of the plan. */
  sources: EventLogSource[];
  /** Events whose time is at or after this (default: the start of each log). */
  since?: Date | undefined;
  /** Events whose time is before this (default: when the replay first started). */
  until?: Date | undefined;
  /** Events per second at most (default 500; 0: as fast as the queue takes them). */
  ratePerSecond?: number;
  /** Events read per page of a log (default 500). */
  pageSize?: number;
  /** SendMessageBatch calls in flight (default 4). */
  concurrency?: number;
  /** Count and list what would be sent; send nothing, keep no checkpoint. */
  dryRun?: boolean;
  /** Where progress is kept, so that an interrupted replay resumes; none: each run starts over. */
  checkpoint?: CheckpointFile | undefined;
  /** Ignore (and replace) a checkpoint left by an interrupted run. */
  fresh?: boolean;
  /** Aborting stops the replay after the batches in flight; the checkpoint says where it stopped. */
  signal?: AbortSignal | undefined;
  onProgress?(progress: ReplayProgress): void;
  /** Each batch as it is sent (or, in a dry run, each page as it is listed). */
  onEvents?(items: LoggedEvent[], outcome: 'sent' | 'listed'): void;
  send?: SendOptions;
  clock?: Clock;
}

export interface ReplayProgress {
  producer: ServiceName;
  /** Events read from the logs by this run. */
  read: number;
  /** Events sent by this run. */
  sent: number;
  elapsedMs: number;
  /** Sent (listed, in a dry run) per second by this run. */
  eventsPerSecond: number;
}

export interface ReplaySummary {
  queue: string;
  types: EventType[];
  until: string;
  dryRun: boolean;
  /** A checkpoint of an interrupted run was resumed. */
  resumed: boolean;
  /** Stopped by the signal before the end: run it again to resume. */
  interrupted: boolean;
  read: number;
  sent: number;
  byType: Partial<Record<EventType, number>>;
  elapsedMs: number;
  eventsPerSecond: number;
}

/**
 * Reads the producers' event logs and sends the events, with their original
 * ids and trace context, straight to one consumer queue: paced, in log order
 * (upstream producers first), resumable. The consumer's idempotency (by event
 * id) turns what it already applied into no-ops; what it lost is rebuilt.
 */
export async function replayEvents(options: ReplayOptions): Promise<ReplaySummary> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const dryRun = options.dryRun ?? false;
  const pageSize = options.pageSize ?? DEFAULT_REPLAY_PAGE;
  const checkpoint = dryRun ? undefined : options.checkpoint;
  const { state, resumed } = await initialState(options, checkpoint);
  const until = new Date(state.until);
  const since = state.since ? new Date(state.since) : undefined;
  const totals = { read: 0, sent: 0, byType: {} as Partial<Record<EventType, number>> };
  const elapsed = () => clock.now() - started;
  const rate = (n: number) => (elapsed() > 0 ? (n * 1000) / elapsed() : 0);
  const aborted = () => options.signal?.aborted === true;
  let lastSave = clock.now();
  const save = async (force: boolean) => {
    if (!checkpoint || (!force && clock.now() - lastSave < 1000)) return;
    lastSave = clock.now();
    await checkpoint.save(state);
  };
  const count = (items: LoggedEvent[]) => {
    for (const item of items) totals.byType[item.event.type] = (totals.byType[item.event.type] ?? 0) + 1;
  };
  const summary = (interrupted: boolean): ReplaySummary => ({
    queue: options.queue.name,
    types: options.plan.types,
    until: state.until,
    dryRun,
    resumed,
    interrupted,
    read: totals.read,
    sent: totals.sent,
    byType: totals.byType,
    elapsedMs: Math.round(elapsed()),
    eventsPerSecond: Math.round(rate(dryRun ? totals.read : totals.sent)),
  });
  const pacer = new Pacer(options.ratePerSecond ?? DEFAULT_REPLAY_RATE, clock);

  for (const { producer, types } of options.plan.sources) {
    if (state.finished.includes(producer)) continue;
    const log = options.sources.find((s) => s.producer === producer);
    if (!log)
      throw new ReplayInputError(`no event log of ${producer} was given to read ${types.join(', ')} from`);
    const read = (after: string) => {
      const page = log.read({ types, since, until, after, limit: pageSize });
      page.catch(() => undefined); // awaited below, or abandoned when the replay stops
      return page;
    };
    let next: Promise<EventLogPage> | undefined = read(state.positions[producer] ?? '0');
    while (next) {
      const page: EventLogPage = await next;
      // The next page is read while this one is sent.
      next = page.nextCursor && !aborted() ? read(page.nextCursor) : undefined;
      const stray = page.items.find((item) => !(types as string[]).includes(item.event.type));
      if (stray) {
        throw new Error(
          `${producer}'s log answered an event of type ${stray.event.type}, which was not asked for`,
        );
      }
      totals.read += page.items.length;
      if (dryRun) {
        count(page.items);
        options.onEvents?.(page.items, 'listed');
      } else {
        const sent = await sendPage(page.items, {
          ...options,
          pacer,
          onBatch: (batch) => {
            state.positions[producer] = batch.at(-1)!.position;
            state.sent += batch.length;
            totals.sent += batch.length;
            count(batch);
            return save(false);
          },
        }).catch(async (error: unknown) => {
          await save(true);
          throw error;
        });
        if (sent < page.items.length) {
          await save(true);
          return summary(true);
        }
      }
      options.onProgress?.({
        producer,
        read: totals.read,
        sent: totals.sent,
        elapsedMs: Math.round(elapsed()),
        eventsPerSecond: Math.round(rate(dryRun ? totals.read : totals.sent)),
      });
      if (aborted()) {
        await save(true);
        return summary(true);
      }
    }
    state.finished.push(producer);
    await save(true);
  }
  await checkpoint?.remove();
  return summary(false);
}

async function initialState(
  options: ReplayOptions,
  checkpoint: CheckpointFile | undefined,
): Promise<{ state: ReplayState; resumed: boolean }> {
  const now = new Date().toISOString();
  const identity = {
    queue: options.queue.name,
    types: options.plan.types,
    since: options.since?.toISOString() ?? null,
    until: options.until?.toISOString(),
  };
  if (checkpoint && options.fresh) await checkpoint.remove();
  const saved = checkpoint && !options.fresh ? await checkpoint.load() : undefined;
  if (saved) {
    const why = checkpointMismatch(saved, identity);
    if (why) {
      throw new ReplayInputError(
        `${checkpoint!.path} holds an interrupted replay of another kind (${why}): finish it by running that replay again, or pass --fresh to start this one over`,
      );
    }
    return { state: saved, resumed: true };
  }
  return {
    resumed: false,
    state: {
      version: 1,
      ...identity,
      until: identity.until ?? now,
      positions: {},
      finished: [],
      sent: 0,
      startedAt: now,
      updatedAt: now,
    },
  };
}

/**
 * Sends a page in batches, `concurrency` calls in flight, each paced. A batch
 * counts (and moves the position on) only once every batch before it is sent,
 * so a checkpoint never skips an unsent event. Returns how many events of the
 * page were sent in order; fewer than all when the replay was aborted.
 */
async function sendPage(
  items: LoggedEvent[],
  options: ReplayOptions & { pacer: Pacer; onBatch(batch: LoggedEvent[]): Promise<void> },
): Promise<number> {
  const batches = batchesOf(items);
  const done: boolean[] = batches.map(() => false);
  let nextIndex = 0;
  let inOrder = 0;
  let sentInOrder = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && options.signal?.aborted !== true && nextIndex < batches.length) {
      const index = nextIndex++;
      const batch = batches[index]!;
      await options.pacer.take(batch.length, options.signal);
      if (options.signal?.aborted) return;
      try {
        await sendBatch(options.sqs, options.queue.url, batch, options.send);
      } catch (error) {
        failure ??= error;
        return;
      }
      options.onEvents?.(batch, 'sent');
      done[index] = true;
      while (done[inOrder]) {
        const first = batches[inOrder]!;
        inOrder += 1;
        sentInOrder += first.length;
        await options.onBatch(first);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? DEFAULT_REPLAY_CONCURRENCY }, worker));
  if (failure !== undefined) throw failure;
  return sentInOrder;
}
