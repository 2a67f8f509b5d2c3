// The policy of policy.ts as a pure decision over samples: the local
// autoscaler (`pnpm start`) calls it every round; the AWS stack states the
// same rules as CloudWatch alarms and scaling policies. Nothing here reads a
// clock or a queue: the caller passes the time and the signal.
import type { WorkerScalingPolicy } from '@hireflow/contracts';

export interface ScalingSample {
  /** When the sample was taken (ms since the epoch). */
  at: number;
  /** Messages and jobs waiting for a worker. */
  backlog: number;
  /** How long the oldest waiting work has waited (s); 0 when none waits. */
  oldestAgeSeconds: number;
}

/** What the decision remembers between rounds. */
export interface ScalingState {
  workers: number;
  lastScaleOutAt?: number | undefined;
  lastScaleInAt?: number | undefined;
  /** Since when one worker fewer would have been enough, without a break. */
  quietSince?: number | undefined;
}

export interface ScalingDecision {
  state: ScalingState;
  /** What changed and why; undefined when the count holds. */
  reason?: string | undefined;
}

const seconds = (ms: number) => ms / 1000;
const since = (now: number, then: number | undefined) =>
  then === undefined ? Infinity : seconds(now - then);

/**
 * The next worker count (docs/operations.md, "Scaling"):
 * - below the minimum or above the maximum: brought within them at once;
 * - backlog per worker above the target: out to ceil(backlog ÷ target), once
 *   the scale-out cool-down has passed;
 * - the oldest work older than `maxMessageAgeSeconds`: one more, same cool-down;
 * - one worker fewer would still be within the target (backlog and age) for
 *   the whole quiet period, and the scale-in cool-down has passed since the
 *   last change: one fewer. Testing "one fewer" rather than "now" is the
 *   hysteresis that keeps a count from flapping at the threshold.
 */
export function decideWorkers(
  policy: WorkerScalingPolicy,
  sample: ScalingSample,
  state: ScalingState,
): ScalingDecision {
  const now = sample.at;
  const { workers } = state;
  if (workers < policy.minWorkers || workers > policy.maxWorkers) {
    const target = Math.min(policy.maxWorkers, Math.max(policy.minWorkers, workers));
    return { state: { workers: target }, reason: `kept within ${policy.minWorkers}–${policy.maxWorkers}` };
  }

  const perWorker = sample.backlog / workers;
  const tooOld = sample.oldestAgeSeconds > policy.maxMessageAgeSeconds;
  const outCooled = since(now, state.lastScaleOutAt) >= policy.scaleOutCooldownSeconds;
  if ((perWorker > policy.backlogPerWorker || tooOld) && workers < policy.maxWorkers) {
    if (!outCooled) return { state: { ...state, quietSince: undefined } };
    const byBacklog = Math.ceil(sample.backlog / policy.backlogPerWorker);
    const target = Math.min(policy.maxWorkers, Math.max(workers + 1, tooOld ? workers + 1 : byBacklog));
    const reason =
      perWorker > policy.backlogPerWorker
        ? `backlog ${sample.backlog} is ${perWorker.toFixed(0)} per worker > ${policy.backlogPerWorker}`
        : `oldest waited ${sample.oldestAgeSeconds.toFixed(0)} s > ${policy.maxMessageAgeSeconds} s`;
    return { state: { workers: target, lastScaleOutAt: now, lastScaleInAt: state.lastScaleInAt }, reason };
  }

  const oneFewerFits =
    workers > policy.minWorkers && sample.backlog / (workers - 1) <= policy.backlogPerWorker && !tooOld;
  if (!oneFewerFits) return { state: { ...state, quietSince: undefined } };
  const quietSince = state.quietSince ?? now;
  const quietLongEnough = seconds(now - quietSince) >= policy.quietPeriodBeforeScaleInSeconds;
  const lastChange = Math.max(state.lastScaleInAt ?? -Infinity, state.lastScaleOutAt ?? -Infinity);
  const inCooled =
    since(now, Number.isFinite(lastChange) ? lastChange : undefined) >= policy.scaleInCooldownSeconds;
  if (!quietLongEnough || !inCooled) return { state: { ...state, quietSince } };
  return {
    state: { workers: workers - 1, lastScaleOutAt: state.lastScaleOutAt, lastScaleInAt: now, quietSince },
    reason: `quiet for ${seconds(now - quietSince).toFixed(0)} s: ${sample.backlog} waiting fits ${workers - 1}`,
  };
}

/** The policy with its durations multiplied by `factor` (a demo runs minutes as seconds). */
export function scaleTime(policy: WorkerScalingPolicy, factor: number): WorkerScalingPolicy {
  return {
    ...policy,
    maxMessageAgeSeconds: policy.maxMessageAgeSeconds * factor,
    scaleOutCooldownSeconds: policy.scaleOutCooldownSeconds * factor,
    scaleInCooldownSeconds: policy.scaleInCooldownSeconds * factor,
    quietPeriodBeforeScaleInSeconds: policy.quietPeriodBeforeScaleInSeconds * factor,
  };
}
