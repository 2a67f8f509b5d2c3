// What the capacity model predicts for a burst (`pnpm burst`): each pool's
// peak worker count and the time it takes to drain, from the model's
// measured per-worker ceilings (libs/contracts/src/capacity) and the local
// autoscaler's own policy (decide.ts), simulated second by second. `pnpm
// burst` prints it beside what the run measured (docs/capacity.md,
// "Prediction against a run").
import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { measured, searchMs } from '@hireflow/contracts/capacity';
import { decideWorkers, type ScalingState } from './decide.ts';

/** A burst of candidate registrations: what `pnpm burst` publishes. */
export interface BurstLoad {
  events: number;
  /** How long publishing them took (s): they arrive evenly over it. */
  publishSeconds: number;
  /** Open postings a candidate's computation searches (the burst registers candidates only: 0). */
  openPostingsPerTenant: number;
}

export interface BurstPrediction {
  /** Work per event each pool must do, and what one worker does of it per second. */
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

/**
 * The pool under the burst, a second at a time: events arrive evenly over
 * the publish, each worker takes `rate` a second, and every `intervalSeconds`
 * the autoscaler's decision (decideWorkers, the policy given) sets the count;
 * a worker it adds takes `startSeconds` before it takes work (a process
 * starting: a Fargate task takes 30–60 s, a local process a few seconds).
 */
export function predictBurst(
  load: BurstLoad,
  policy: WorkerScalingPolicy,
  rate: number,
  options: { intervalSeconds: number; startSeconds: number; maxSeconds?: number },
): BurstPrediction {
  const maxSeconds = options.maxSeconds ?? 3600;
  const arrivals = load.events / Math.max(1, load.publishSeconds);
  let state: ScalingState = { workers: policy.minWorkers };
  // When each worker the autoscaler asked for starts taking work.
  let ready: number[] = Array.from({ length: policy.minWorkers }, () => 0);
  let backlog = 0;
  let published = 0;
  let oldestArrival: number | undefined;
  let peakWorkers = state.workers;
  let drained = 0;
  for (let t = 0; t < maxSeconds; t++) {
    const adding = Math.min(arrivals, load.events - published);
    published += adding;
    backlog += adding;
    if (backlog > 0 && oldestArrival === undefined) oldestArrival = t;
    const working = ready.filter((at) => at <= t).length;
    const done = Math.min(backlog, working * rate);
    backlog -= done;
    if (backlog <= 1e-9) {
      backlog = 0;
      oldestArrival = undefined;
    }
    // Work still arriving or waiting: the burst is not drained by the end of this second.
    if (backlog > 0 || published < load.events || done > 0) drained = t + 1;
    if (t % options.intervalSeconds === 0) {
      const decision = decideWorkers(
        policy,
        {
          at: t * 1000,
          backlog: Math.ceil(backlog),
          oldestAgeSeconds: oldestArrival === undefined ? 0 : t - oldestArrival,
        },
        state,
      );
      state = decision.state;
      if (state.workers > ready.length) {
        ready = [
          ...ready,
          ...Array.from({ length: state.workers - ready.length }, () => t + options.startSeconds),
        ];
      } else ready = ready.slice(0, state.workers);
      peakWorkers = Math.max(peakWorkers, state.workers);
    }
    if (published >= load.events && backlog === 0 && t >= drained) break;
  }
  return { perWorkerPerSecond: rate, peakWorkers, drainSeconds: drained };
}

/** The pools a burst of registrations loads, with the work each does per event. */
export const BURST_POOLS: readonly ('matching' | 'notifications')[] = ['matching', 'notifications'];

/** Measured over predicted, and whether it is within `tolerance` (0.3: 30 %) either way. */
export function compare(predicted: number, measuredValue: number, tolerance = 0.3) {
  const ratio = predicted === 0 ? (measuredValue === 0 ? 1 : Infinity) : measuredValue / predicted;
  // A hair of slack: 7 / 10 is 0.7 only up to floating point.
  return { ratio, within: Math.abs(ratio - 1) <= tolerance + 1e-9 };
}
