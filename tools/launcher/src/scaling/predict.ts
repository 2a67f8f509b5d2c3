// What the capacity model predicts for a burst (`pnpm burst`): each pool's
// peak worker count and the time it takes to drain, from the model's
// measured per-worker ceilings (libs/contracts/src/capacity) and the local
// autoscaler's own policy (decide.ts), simulated second by second. `pnpm
// burst` prints it beside what the run measured (docs/capacity.md,
// "Prediction against a run").
import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { measured, searchMs } from '@hireflow/contracts/capacity';
import { decideWorkers, type ScalingState } from './decide.ts';
import { type BurstProbe, seriesAt } from './probe.ts';

/** A burst of candidate registrations: what `pnpm burst` publishes. */
export interface BurstLoad {
  events: number;
  /** How long publishing them took (s): they arrive evenly over it. */
  publishSeconds: number;
  /** Open postings a candidate's computation searches (the burst registers candidates only: 0). */
  openPostingsPerTenant: number;
}

export interface BurstPrediction {
  /** What one worker handled a second in the last second the pool had work. */
  perWorkerPerSecond: number;
  peakWorkers: number;
  /** From the first event published to the end of the second in which the last of them was handled. */
  drainSeconds: number;
}

/**
 * Events one worker of a pool handles per second, for a candidate
 * registration: matching embeds it and searches the tenant's open postings
 * (one computation), notifications records a welcome email and sends it. The
 * SQS delivery and the pool's own work run side by side (the consumer's
 * concurrency), so the slower of the two sets the pace, as in the model.
 */
export function perWorkerRate(service: 'matching' | 'notifications', load: BurstLoad): number {
  const inbox = measured.inboxMessagesPerSecondPerWorker.value;
  if (service === 'notifications') return Math.min(inbox, measured.emailsPerSecondPerWorker.value);
  const computeMs =
    measured.embedMs.value + searchMs(load.openPostingsPerTenant) + measured.computationWriteMs.value;
  return Math.min(inbox, 1000 / computeMs);
}

/** A pool in the simulation: its policy, and what one worker handles a second when `busy` processes share the CPU. */
export interface SimulatedPool {
  service: string;
  policy: WorkerScalingPolicy;
  perWorkerPerSecond: (busy: number) => number;
  /**
   * A second stage in the same processes (notifications: the inbox records
   * the email, a BullMQ task sends it): what one worker sends a second when
   * it does nothing else. The first stage goes first: a worker's second goes
   * to the inbox while it has work, what is left of it to sending (the
   * 05:35 burst: at most 47 of 1,000 emails sent while the inbox had work).
   * The autoscaler sees both stages' waiting work, and the older of the two.
   */
  sendPerWorkerPerSecond?: ((busy: number) => number) | undefined;
}

export interface SimulationOptions {
  /** How often the autoscaler decides (s). */
  intervalSeconds: number;
  /** How long a worker it adds takes before it takes work (s). */
  startSeconds: number;
  maxSeconds?: number;
}

/**
 * The pools under a burst, a second at a time: the same events arrive at
 * every pool (`published(t)`: how many were published by t s), each pool's
 * ready workers take work first in, first out at `perWorkerPerSecond(busy)`,
 * where `busy` is the processes competing for the CPU in that second (every
 * ready worker of a pool with work waiting, and every worker still starting:
 * a Node process starting is CPU-bound); every `intervalSeconds` the
 * autoscaler's decision (decideWorkers, each pool's policy) sets the count
 * from the backlog and the age of the oldest waiting event; a worker it adds
 * takes `startSeconds` before it takes work.
 */
export function simulateBurst(
  events: number,
  published: (t: number) => number,
  pools: readonly SimulatedPool[],
  options: SimulationOptions,
): Record<string, BurstPrediction> {
  const maxSeconds = options.maxSeconds ?? 3600;
  const state = pools.map((pool) => ({
    pool,
    scaling: { workers: pool.policy.minWorkers } as ScalingState,
    // When each worker the autoscaler asked for starts taking work.
    readyAt: Array.from({ length: pool.policy.minWorkers }, () => 0),
    // Waiting events by the second they arrived, oldest first: the inbox, and the second stage's tasks.
    inbox: new Fifo(),
    tasks: new Fifo(),
    peakWorkers: pool.policy.minWorkers,
    drained: 0,
    perWorker: 0,
  }));
  let arrived = 0;
  for (let t = 0; t < maxSeconds; t++) {
    const adding = Math.min(events, published(t + 1)) - arrived;
    arrived += adding;
    let busy = 0;
    for (const s of state) {
      if (adding > 0) s.inbox.add(t, adding);
      const ready = s.readyAt.filter((at) => at <= t).length;
      busy += (s.inbox.size + s.tasks.size > 0 ? ready : 0) + (s.readyAt.length - ready);
    }
    for (const s of state) {
      const ready = s.readyAt.filter((at) => at <= t).length;
      const pace = s.pool.perWorkerPerSecond(Math.max(1, busy));
      if (s.inbox.size > 0) s.perWorker = pace;
      const taken = s.inbox.take(Math.min(s.inbox.size, ready * pace));
      let handled = taken;
      const send = s.pool.sendPerWorkerPerSecond;
      if (send) {
        // What the inbox left of the workers' second goes to sending; the tasks it added wait from now.
        if (taken > 0) s.tasks.add(t, taken);
        const left = ready - (pace > 0 ? taken / pace : 0);
        handled += s.tasks.take(Math.min(s.tasks.size, Math.max(0, left) * send(Math.max(1, busy))));
      }
      // Work still arriving or waiting: the burst is not drained by the end of this second.
      if (s.inbox.size + s.tasks.size > 0 || arrived < events || handled > 0) s.drained = t + 1;
      if (t % options.intervalSeconds === 0) {
        const decision = decideWorkers(
          s.pool.policy,
          {
            at: t * 1000,
            backlog: Math.ceil(s.inbox.size + s.tasks.size),
            oldestAgeSeconds: Math.max(s.inbox.ageAt(t), s.tasks.ageAt(t)),
          },
          s.scaling,
        );
        s.scaling = decision.state;
        const workers = decision.state.workers;
        if (workers > s.readyAt.length) {
          s.readyAt.push(
            ...Array.from({ length: workers - s.readyAt.length }, () => t + options.startSeconds),
          );
        } else s.readyAt = s.readyAt.slice(0, workers);
        s.peakWorkers = Math.max(s.peakWorkers, workers);
      }
    }
    if (arrived >= events && state.every((s) => s.inbox.size + s.tasks.size === 0)) break;
  }
  return Object.fromEntries(
    state.map((s) => [
      s.pool.service,
      { perWorkerPerSecond: s.perWorker, peakWorkers: s.peakWorkers, drainSeconds: s.drained },
    ]),
  );
}

/** Waiting work by the second it arrived, first in, first out. */
class Fifo {
  #entries: { at: number; count: number }[] = [];
  size = 0;

  add(at: number, count: number): void {
    this.#entries.push({ at, count });
    this.size += count;
  }

  /** Takes up to `count` from the head; returns what it took. */
  take(count: number): number {
    let left = count;
    while (left > 1e-9 && this.#entries.length > 0) {
      const head = this.#entries[0]!;
      const taken = Math.min(head.count, left);
      head.count -= taken;
      left -= taken;
      if (head.count <= 1e-9) this.#entries.shift();
    }
    this.size -= count - left;
    if (this.size <= 1e-9 || this.#entries.length === 0) {
      this.size = 0;
      this.#entries = [];
    }
    return count - left;
  }

  /** How long the oldest waiting has waited at t (s); 0 when none waits. */
  ageAt(t: number): number {
    return this.#entries.length > 0 ? t - this.#entries[0]!.at : 0;
  }
}

/** Events published evenly over `seconds`: how many by t. */
export const evenly =
  (events: number, seconds: number) =>
  (t: number): number =>
    Math.min(events, (events * t) / Math.max(1, seconds));

/** One pool at the model's benched rate, its workers never slowed by others: `predictBurst` of one pool. */
export function predictBurst(
  load: BurstLoad,
  policy: WorkerScalingPolicy,
  rate: number,
  options: SimulationOptions,
): BurstPrediction {
  return simulateBurst(
    load.events,
    evenly(load.events, load.publishSeconds),
    [{ service: 'pool', policy, perWorkerPerSecond: () => rate }],
    options,
  ).pool!;
}

/** The pools a burst of registrations loads, with the work each does per event. */
export const BURST_POOLS: readonly ('matching' | 'notifications')[] = ['matching', 'notifications'];

/** Measured over predicted, and whether it is within `tolerance` (0.3: 30 %) either way. */
export function compare(predicted: number, measuredValue: number, tolerance = 0.3) {
  const ratio = predicted === 0 ? (measuredValue === 0 ? 1 : Infinity) : measuredValue / predicted;
  // A hair of slack: 7 / 10 is 0.7 only up to floating point.
  return { ratio, within: Math.abs(ratio - 1) <= tolerance + 1e-9 };
}

/** One autoscaler sample of a pool during a recorded burst. */
export interface RunSample {
  /** Seconds since the first event was published. */
  t: number;
  backlog: number;
  oldestAgeSeconds: number;
  /** Workers the autoscaler asked for. */
  workers: number;
  /** Workers started and taking work. */
  ready: number;
  /** The backlog's two parts (runs since 2026-12-02 05:00): SQS messages visible in the inbox, BullMQ tasks waiting. */
  inbox?: number;
  jobs?: number;
  reason?: string;
}

/** A recorded `pnpm burst` run (`--save FILE`; `--replay FILE` compares it again). */
export interface BurstRun {
  /** When the first event was published (ISO). */
  at: string;
  events: number;
  timeScale: number;
  publishSeconds: number;
  /** [seconds since the first publish, events published by then], after each batch. */
  published: [number, number][];
  pools: Record<string, RunSample[]>;
  /** The bounds the autoscaler ran with (time-scaled, maximums capped to the connections). */
  policies: Record<string, WorkerScalingPolicy>;
  cores: number;
  /** The machine's one-minute load average, every 2 s of the run. */
  loadAverage: number[];
  /** Per pool, every 2 s: [t, its workers' CPU seconds, their seconds waiting for a core] so far (Linux schedstat). */
  cpu?: Record<string, [number, number, number][]>;
  /** Where the CPU went, every process of the instance, its databases and counters (scaling/probe.ts). */
  probe?: BurstProbe;
}

/**
 * What a pool's workers spent per event over the run, from the kernel's
 * accounting: CPU time, and time runnable but waiting for a core. Absent
 * without a record (a run saved before, or not on Linux).
 */
export function schedulePerEvent(
  run: BurstRun,
  service: string,
): { cpuMs: number; waitMs: number } | undefined {
  const series = run.cpu?.[service];
  if (!series || series.length === 0) return undefined;
  const [, cpu, wait] = series[series.length - 1]!;
  return { cpuMs: (cpu * 1000) / run.events, waitMs: (wait * 1000) / run.events };
}

/** Events published by t (s) in a recorded run: linear between the progress marks. */
export function publishedBy(run: BurstRun, t: number): number {
  const marks = run.published;
  if (t <= 0) return 0;
  for (let i = 1; i < marks.length; i++) {
    const [t1, n1] = marks[i]!;
    if (t <= t1) {
      const [t0, n0] = marks[i - 1]!;
      return n0 + ((n1 - n0) * (t - t0)) / Math.max(1e-9, t1 - t0);
    }
  }
  return marks[marks.length - 1]![1];
}

/**
 * What the run measured for a pool: its peak workers, and its drain time:
 * the last sample with work waiting, and never before publishing ended (a
 * pool that kept pace handled the last event as it came; its gauge read
 * nothing from some sample before, which is not when the burst was done).
 */
export function measuredOutcome(
  points: readonly RunSample[],
  publishSeconds = 0,
): { peakWorkers: number; drainSeconds: number } {
  const waiting = points.filter((p) => p.backlog > 0);
  return {
    peakWorkers: points.length > 0 ? Math.max(...points.map((p) => p.workers)) : 0,
    drainSeconds: waiting.length > 0 ? Math.max(publishSeconds, ...waiting.map((p) => p.t)) : 0,
  };
}

const sampleAt = (points: readonly RunSample[], t: number): RunSample =>
  points.findLast((p) => p.t <= t) ?? points[0]!;

/** Processes of the stack competing for the CPU at t: ready workers of pools with work waiting, workers starting. */
export function busyAt(run: BurstRun, t: number): number {
  let busy = 0;
  for (const points of Object.values(run.pools)) {
    if (points.length === 0) continue;
    const s = sampleAt(points, t);
    busy += (s.backlog > 0 ? s.ready : 0) + Math.max(0, s.workers - s.ready);
  }
  return busy;
}

/**
 * A process's share of the cores when `busy` processes of the stack and
 * `others` outside it (other sessions' work, taken as steady) are runnable:
 * a core at most.
 */
export const cpuShare = (cores: number, busy: number, others = 0): number =>
  cores / Math.max(cores, busy + others);

/**
 * Pools whose event is two stages in the same processes: the inbox records
 * it, then a BullMQ task does the work (notifications: the email is sent).
 * The burst's events make the second stage of matching (a computation
 * against no open posting) too small to matter; notifications' is ~43 % of
 * its CPU (measured.ts).
 */
export const TWO_STAGE_POOLS: readonly string[] = ['notifications'];

/** A second stage's CPU per event over the first's, from the measured per-stage rates. */
export const SEND_TO_INTAKE_COST =
  measured.notificationIntakesPerSecondPerWorker.value / measured.emailSendsPerSecondPerWorker.value;

export interface PoolCalibration {
  service: string;
  /** What the window counted: the first stage of a two-stage pool (`inbox`), or the whole event (`all`). */
  stage: 'inbox' | 'all';
  /** The window (s since the first publish): the pool saturated, the fleet still at its minimum. */
  from: number;
  to: number;
  /** Workers taking work through it. */
  workers: number;
  /** Events one of them handled a second (through the stage counted). */
  perWorkerPerSecond: number;
  /** Processes of the stack competing for the CPU through the window, on average. */
  busy: number;
  /** CPU-seconds one event cost a worker (the stage counted): its share of the cores ÷ its rate. */
  cpuSecondsPerEvent: number;
  /** A two-stage pool's second stage: CPU-seconds per event, the first's × SEND_TO_INTAKE_COST. */
  sendCpuSecondsPerEvent?: number;
}

export interface RunCalibration {
  /** The pools whose window was long enough (3 s or more). */
  pools: Record<string, PoolCalibration>;
  /** Seconds from a worker asked for to it taking work, the mean over the run's scale-outs. */
  startSeconds: number | undefined;
  /** Before this (s) every pool ran its minimum: the first added worker took work. */
  fleetGrewAt: number;
  /**
   * Runnable processes outside the stack, from the kernel's accounting of
   * the workers before the fleet grew (`contention`); 0 without it.
   */
  others: number;
}

const MIN_WINDOW_SECONDS = 3;

/**
 * How many processes outside the stack compete for the cores, from the
 * workers' schedstat (`run.cpu`) over [0, until]: a runnable thread among N
 * on `cores` runs cores ÷ N of the time, so N = cores × (CPU + wait) ÷ CPU;
 * the others are N less the stack's busy processes (on average over the
 * same samples). At load 23–40 that is a few; at load 63–78 (the 05:35 run)
 * the workers ran 4 % of the time they were runnable: ~50 others, and the
 * stack's share grows with its process count instead of being two cores
 * shared among them. 0 without a record.
 */
export function contention(run: BurstRun, until: number): number {
  const series = Object.values(run.cpu ?? {}).filter((s) => s.length > 0);
  if (series.length === 0) return 0;
  const end = Math.min(until, Math.max(...series.map((s) => s[s.length - 1]![0])));
  let cpu = 0;
  let wait = 0;
  for (const s of series) {
    cpu += seriesAt(s, end, 1) - seriesAt(s, 0, 1);
    wait += seriesAt(s, end, 2) - seriesAt(s, 0, 2);
  }
  if (cpu <= 0) return 0;
  const competing = (run.cores * (cpu + wait)) / cpu;
  const samples = Object.values(run.pools)
    .flatMap((points) => points.map((p) => p.t))
    .filter((t) => t <= end);
  const busy = samples.length > 0 ? samples.reduce((sum, t) => sum + busyAt(run, t), 0) / samples.length : 0;
  return Math.max(0, competing - busy);
}

/**
 * The per-worker rates and the start time of a worker, from the run itself
 * (docs/capacity.md, "Prediction against a run"). A pool's window starts
 * when the burst is published (a second after, so the queue gauges have
 * caught up; from its first waiting sample if that leaves less than 3 s)
 * and ends when the first added worker of any pool takes work, or when the
 * pool's backlog empties: each of its minimum workers was busy throughout,
 * so what they handled (published − waiting) over the window is their pace
 * on this machine at this load, with `busy` processes of the stack and
 * `others` outside it sharing its cores. A two-stage pool whose samples
 * keep the inbox apart is calibrated on its inbox (published − inbox): its
 * workers give the inbox their time first.
 */
export function calibrate(run: BurstRun): RunCalibration {
  const grew = Object.entries(run.pools).flatMap(([service, points]) =>
    points.filter((p) => p.ready > run.policies[service]!.minWorkers).map((p) => p.t),
  );
  const fleetGrewAt = grew.length > 0 ? Math.min(...grew) : Number.POSITIVE_INFINITY;
  const others = contention(run, fleetGrewAt);
  const pools: Record<string, PoolCalibration> = {};
  for (const [service, points] of Object.entries(run.pools)) {
    const before = points.filter((p) => p.t < fleetGrewAt);
    const twoStage = TWO_STAGE_POOLS.includes(service) && before.every((p) => p.inbox !== undefined);
    const waiting = (p: RunSample) => (twoStage ? p.inbox! : p.backlog);
    const saturatedFrom = (start: number): [RunSample, RunSample] | undefined => {
      const from = before.findIndex((p) => p.t >= start && waiting(p) > 0);
      if (from < 0) return undefined;
      let to = from;
      for (;;) {
        const next = before[to + 1];
        if (!next) break;
        if (waiting(next) > 0) {
          to += 1;
          continue;
        }
        // Samples reading nothing, then work again: the gauge's zeros, not the queue's, when
        // only one reads nothing, or when the next reading has more waiting than was published
        // since (at load 63–78 the gauges read nothing for up to 11 s at a time).
        const k = before.findIndex((p, i) => i > to + 1 && waiting(p) > 0);
        if (k < 0) break;
        const arrived = publishedBy(run, before[k]!.t) - publishedBy(run, next.t);
        if (k === to + 2 || waiting(before[k]!) > arrived) to = k;
        else break;
      }
      return before[to]!.t - before[from]!.t >= MIN_WINDOW_SECONDS ? [before[from]!, before[to]!] : undefined;
    };
    const window = saturatedFrom(run.publishSeconds + 1) ?? saturatedFrom(0);
    if (!window) continue;
    const [a, b] = window;
    const handled = (p: RunSample) => publishedBy(run, p.t) - waiting(p);
    const perWorkerPerSecond = (handled(b) - handled(a)) / (b.t - a.t) / Math.max(1, a.ready);
    if (perWorkerPerSecond <= 0) continue;
    const inWindow = points.filter((p) => p.t >= a.t && p.t <= b.t);
    const busy = inWindow.reduce((sum, p) => sum + busyAt(run, p.t), 0) / inWindow.length;
    const cpuSecondsPerEvent = cpuShare(run.cores, busy, others) / perWorkerPerSecond;
    pools[service] = {
      service,
      stage: twoStage ? 'inbox' : 'all',
      from: a.t,
      to: b.t,
      workers: a.ready,
      perWorkerPerSecond,
      busy,
      cpuSecondsPerEvent,
      ...(twoStage ? { sendCpuSecondsPerEvent: cpuSecondsPerEvent * SEND_TO_INTAKE_COST } : {}),
    };
  }
  // Each scale-out: from the sample that asked for more workers to the first with that many ready.
  const starts: number[] = [];
  for (const points of Object.values(run.pools)) {
    points.forEach((p, i) => {
      if (i === 0 || p.workers <= points[i - 1]!.workers) return;
      const ready = points.slice(i).find((q) => q.ready >= p.workers);
      if (ready) starts.push(ready.t - p.t);
    });
  }
  const startSeconds = starts.length > 0 ? starts.reduce((a, b) => a + b, 0) / starts.length : undefined;
  return { pools, startSeconds, fleetGrewAt, others };
}

export interface PoolComparison {
  service: string;
  calibration: PoolCalibration | undefined;
  predicted: BurstPrediction;
  /** The same burst at the benched ceilings, each worker never slowed by others (the model as it plans Fargate). */
  benched: BurstPrediction;
  measured: { peakWorkers: number; drainSeconds: number };
  workers: ReturnType<typeof compare>;
  drain: ReturnType<typeof compare>;
}

/**
 * The model's prediction for a recorded run beside what it measured, per
 * pool: the run's own arrivals, each pool's policy as it ran, the start time
 * and per-worker CPU cost calibrated before the fleet grew (`calibrate`),
 * and the cores shared by the busy processes second by second
 * (`simulateBurst`). A pool without a calibration window keeps its benched
 * rate. The benched prediction is beside it for contrast.
 */
export function predictRun(run: BurstRun, options: { defaultStartSeconds: number }): PoolComparison[] {
  const calibration = calibrate(run);
  const load = { events: run.events, publishSeconds: run.publishSeconds, openPostingsPerTenant: 0 };
  const services = Object.keys(run.pools).filter((s) => run.policies[s]);
  const benchedRate = (service: string) =>
    perWorkerRate(service === 'notifications' ? 'notifications' : 'matching', load);
  const benchedRates: Record<string, number> = Object.fromEntries(
    services.map((s) => [
      s,
      (BURST_POOLS as readonly string[]).includes(s)
        ? benchedRate(s)
        : measured.inboxMessagesPerSecondPerWorker.value,
    ]),
  );
  const sim = { intervalSeconds: 1, startSeconds: calibration.startSeconds ?? options.defaultStartSeconds };
  const published = (t: number) => publishedBy(run, t);
  const predicted = simulateBurst(
    run.events,
    published,
    services.map((service) => {
      const c = calibration.pools[service];
      const share = (busy: number) => cpuShare(run.cores, busy, calibration.others);
      return {
        service,
        policy: run.policies[service]!,
        perWorkerPerSecond: c
          ? (busy: number) => share(busy) / c.cpuSecondsPerEvent
          : () => benchedRates[service]!,
        sendPerWorkerPerSecond:
          c?.sendCpuSecondsPerEvent === undefined
            ? undefined
            : (busy: number) => share(busy) / c.sendCpuSecondsPerEvent!,
      };
    }),
    sim,
  );
  const benched = simulateBurst(
    run.events,
    published,
    services.map((service) => ({
      service,
      policy: run.policies[service]!,
      perWorkerPerSecond: () => benchedRates[service]!,
    })),
    { ...sim, startSeconds: options.defaultStartSeconds },
  );
  return services.map((service) => {
    const outcome = measuredOutcome(run.pools[service]!, run.publishSeconds);
    const p = predicted[service]!;
    return {
      service,
      calibration: calibration.pools[service],
      predicted: p,
      benched: benched[service]!,
      measured: outcome,
      workers: compare(p.peakWorkers, outcome.peakWorkers),
      drain: compare(p.drainSeconds, outcome.drainSeconds),
    };
  });
}

/** `predictRun` as the lines `pnpm burst` prints. */
export function compareRun(run: BurstRun, options: { defaultStartSeconds: number }): string[] {
  const calibration = calibrate(run);
  const rows = predictRun(run, options);
  const start = calibration.startSeconds;
  const lines = [
    `calibrated in this run: a worker took ${start === undefined ? `(no scale-out; ${options.defaultStartSeconds} assumed)` : start.toFixed(1)} s to start; the fleet first grew at ${calibration.fleetGrewAt.toFixed(1)} s; ${calibration.others.toFixed(1)} processes outside the stack competed for the cores (schedstat)`,
  ];
  for (const r of rows) {
    const c = r.calibration;
    lines.push(
      c
        ? `  ${r.service.padEnd(14)} ${c.from.toFixed(1)}–${c.to.toFixed(1)} s: ${c.workers} worker(s) at ${c.perWorkerPerSecond.toFixed(1)} events/s each${c.stage === 'inbox' ? ' through the inbox' : ''}, ${c.busy.toFixed(1)} processes busy → ${(c.cpuSecondsPerEvent * 1000).toFixed(1)} CPU-ms an event${c.sendCpuSecondsPerEvent === undefined ? '' : `, + ${(c.sendCpuSecondsPerEvent * 1000).toFixed(1)} to send it`}`
        : `  ${r.service.padEnd(14)} no window of 3 s with work waiting before the fleet grew: benched rate`,
    );
  }
  const schedule = rows.flatMap((r) => {
    const spent = schedulePerEvent(run, r.service);
    return spent
      ? [`${r.service} ${spent.cpuMs.toFixed(1)} ms on a core, ${spent.waitMs.toFixed(1)} ms waiting for one`]
      : [];
  });
  if (schedule.length > 0)
    lines.push(`an event cost the workers (schedstat, the whole run): ${schedule.join('; ')}`);
  lines.push(
    'pool           peak workers: predicted / run   drain: predicted / run   within 30 %   (benched ceilings: workers, drain)',
  );
  for (const r of rows) {
    const verdict = r.workers.within && r.drain.within ? 'yes' : 'no';
    lines.push(
      `${r.service.padEnd(14)} ${`${r.predicted.peakWorkers} / ${r.measured.peakWorkers} (${r.workers.ratio.toFixed(2)})`.padEnd(32)} ${`${r.predicted.drainSeconds} s / ${r.measured.drainSeconds.toFixed(0)} s (${r.drain.ratio.toFixed(2)})`.padEnd(24)} ${verdict.padEnd(13)} (${r.benched.peakWorkers}, ${r.benched.drainSeconds} s)`,
    );
  }
  return lines;
}
