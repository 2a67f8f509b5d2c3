import { appendFile } from 'node:fs/promises';
import { type ServiceName, serviceChannels, type WorkerScalingPolicy } from '@hireflow/contracts';
import { parseMetrics, type Sample, select } from '@hireflow/ops';
import type { WorkerPool } from './pool.ts';
import { decideWorkers, type ScalingState } from './scaling/decide.ts';

/** What one round saw and did for one service (a line of scaling.jsonl). */
export interface ScalingRecord {
  at: string;
  service: string;
  /** SQS messages visible in the inbox (both lanes' queues). */
  inbox: number;
  /** BullMQ jobs waiting, over the service's queues. */
  jobs: number;
  oldestAgeSeconds: number;
  workers: number;
  /** Workers started and taking work (those still starting are counted in `workers` only). */
  ready?: number | undefined;
  reason?: string | undefined;
}

/**
 * The service's signal from its processes' /metrics: queue gauges from the
 * one process that samples them, message age from every process's receives.
 * Locally the backlog counts BullMQ's waiting jobs too (the slow work of
 * notifications, media and matching waits there); CloudWatch cannot see
 * Redis, so the AWS stack scales on SQS alone (docs/operations.md).
 */
export class ServiceSignal {
  readonly #previousAgeBuckets = new Map<string, number>();
  /** The inbox's queues: both lanes' (docs/fairness.md), so the backlog is the whole backlog. */
  readonly inboxes: string[];

  constructor(inboxes: string[]) {
    this.inboxes = inboxes;
  }

  /**
   * The backlog the scrapes show. `sampled` is false when no process exported
   * the inbox's gauges: the sampling lease is between holders (one that
   * crashed holds it until it expires, ~15 s) and the backlog is unknown, not 0.
   */
  read(scrapes: Sample[][]): { inbox: number; jobs: number; oldestAgeSeconds: number; sampled: boolean } {
    const all = scrapes.flat();
    const sampled =
      this.inboxes.length === 0 ||
      this.inboxes.some((queue) => select(all, 'hireflow_sqs_messages', { queue }).length > 0);
    const inbox = this.inboxes.reduce(
      (sum, queue) =>
        sum + (select(all, 'hireflow_sqs_messages', { queue, state: 'visible' })[0]?.value ?? 0),
      0,
    );
    const jobs = select(all, 'hireflow_bullmq_jobs', { state: 'waiting' }).reduce(
      (sum, s) => sum + s.value,
      0,
    );
    const jobAge = Math.max(
      0,
      ...select(all, 'hireflow_bullmq_oldest_waiting_age_seconds').map((s) => s.value),
    );
    return { inbox, jobs, oldestAgeSeconds: Math.max(jobAge, this.#receivedAge(scrapes)), sampled };
  }

  /**
   * A lower bound of the oldest message received since the last round: the
   * lowest bucket bound of the age histogram whose count grew past the bounds
   * below it. SQS tells no age of what still waits; what was just received
   * tells how long it waited.
   */
  #receivedAge(scrapes: Sample[][]): number {
    const totals = new Map<number, number>();
    for (const samples of scrapes) {
      const buckets = this.inboxes.flatMap((queue) =>
        select(samples, 'hireflow_message_age_seconds_bucket', { queue }),
      );
      for (const s of buckets) {
        const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
        totals.set(le, (totals.get(le) ?? 0) + s.value);
      }
    }
    const bounds = [...totals.keys()].sort((a, b) => a - b);
    let age = 0;
    let below = 0;
    for (const [i, le] of bounds.entries()) {
      const key = String(le);
      const grown = Math.max(0, totals.get(le)! - (this.#previousAgeBuckets.get(key) ?? totals.get(le)!));
      // Cumulative buckets: more growth here than below means receives aged between the bounds.
      if (grown > below && i > 0) age = bounds[i - 1]!;
      below = grown;
      this.#previousAgeBuckets.set(key, totals.get(le)!);
    }
    return age;
  }
}

async function scrape(url: string, adminToken: string | undefined): Promise<Sample[]> {
  try {
    const res = await fetch(`${url}/metrics`, {
      signal: AbortSignal.timeout(2000),
      headers: adminToken ? { authorization: `Bearer ${adminToken}` } : {},
    });
    return res.ok ? parseMetrics(await res.text()) : [];
  } catch {
    return []; // a process starting or stopping: the others still tell
  }
}

export interface Autoscaler {
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, for each pool: read the signal, decide (the shared
 * policy, libs/contracts/src/scaling.ts), resize, and append what it saw to `recordTo`.
 */
export function startAutoscaler(options: {
  pools: WorkerPool[];
  /** Each service's API process admin listener, scraped with its workers (one of which samples the queue gauges). */
  apiAdmin: Record<string, string>;
  /** The admin ports' token (pnpm start generates one). */
  adminToken?: string | undefined;
  policies: Record<string, WorkerScalingPolicy>;
  intervalMs: number;
  recordTo: string;
  log: (line: string) => void;
}): Autoscaler {
  const signals = new Map(
    options.pools.map((pool) => {
      const { inbox, bulkInbox } = serviceChannels(pool.service as ServiceName);
      return [pool.service, new ServiceSignal([inbox, bulkInbox].filter((q): q is string => Boolean(q)))];
    }),
  );
  const states = new Map<string, ScalingState>(options.pools.map((p) => [p.service, { workers: p.size }]));
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  /** The policy's decision on what the pool's processes showed; the pool resized to it. */
  const decide = (pool: WorkerPool, seen: { inbox: number; jobs: number; oldestAgeSeconds: number }) => {
    const state = { ...states.get(pool.service)!, workers: pool.size };
    const decision = decideWorkers(
      options.policies[pool.service]!,
      { at: Date.now(), backlog: seen.inbox + seen.jobs, oldestAgeSeconds: seen.oldestAgeSeconds },
      state,
    );
    states.set(pool.service, decision.state);
    if (decision.state.workers !== pool.size && !stopped) {
      options.log(
        `scaling ${pool.service}: ${pool.size} → ${decision.state.workers} workers (${decision.reason})`,
      );
      void pool.resize(decision.state.workers).catch((error: Error) => options.log(error.message));
    }
    return { workers: decision.state.workers, reason: decision.reason };
  };

  const roundFor = async (pool: WorkerPool) => {
    const urls = [options.apiAdmin[pool.service]!, ...pool.adminUrls()];
    const { sampled, ...seen } = signals
      .get(pool.service)!
      .read(await Promise.all(urls.map((url) => scrape(url, options.adminToken))));
    // No gauges this round (their sampler's lease is changing hands): hold, as a backlog of 0 would scale in.
    const outcome = sampled
      ? decide(pool, seen)
      : { workers: pool.size, reason: 'held: no process exported the queue gauges' };
    const record: ScalingRecord = {
      at: new Date().toISOString(),
      service: pool.service,
      ...seen,
      ...outcome,
      ready: pool.ready().length,
    };
    await appendFile(options.recordTo, `${JSON.stringify(record)}\n`);
  };

  const timer = setInterval(() => {
    running = Promise.all(options.pools.map(roundFor)).then(
      () => undefined,
      (error: Error) => options.log(`autoscaler: ${error.message}`),
    );
  }, options.intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
