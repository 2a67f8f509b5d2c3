// How many worker processes each service runs, and when that number changes.
// One policy, two executors: the local autoscaler (`pnpm start`,
// tools/launcher/src/scaling/decide.ts) and the AWS stack (deploy/aws:
// Application Auto Scaling on ECS). Both read this file, so they never
// disagree. Pure data: nothing here imports AWS or starts anything.
//
// The rules, in the terms both executors implement:
//
// - Backlog per worker = visible messages in the service's inbox ÷ running
//   workers (AWS: `ApproximateNumberOfMessagesVisible` ÷ ECS
//   `RunningTaskCount`, a metric math expression, as AWS documents for SQS).
// - Scale out to ceil(visible ÷ backlogPerWorker) workers when the backlog per
//   worker stays above `backlogPerWorker` (AWS: target tracking with scale-in
//   disabled; its alarm needs 3 one-minute datapoints).
// - Add one worker when the oldest message has waited longer than
//   `maxMessageAgeSeconds` (AWS: step scaling on
//   `ApproximateAgeOfOldestMessage`, maximum over one minute). A queue can be
//   short and still stuck behind slow work; age catches what depth misses.
//   SQS leaves a message received three times or more out of this metric, so a
//   message being retried towards the DLQ does not add workers forever.
// - After a scale-out, wait `scaleOutCooldownSeconds` before the next one: a
//   new worker needs time to start and take load before the signal can show it.
// - Remove one worker when one fewer would still be within the target, i.e.
//   visible ÷ (workers − 1) ≤ backlogPerWorker and the oldest message is
//   younger than `maxMessageAgeSeconds`, continuously for
//   `quietPeriodBeforeScaleInSeconds` (AWS: a step policy whose alarm needs
//   that many one-minute datapoints). Testing "one fewer" rather than "now"
//   keeps the fleet from shrinking into a size that must grow again.
// - After a scale-in, wait `scaleInCooldownSeconds` before the next one.
// - Never fewer than `minWorkers` (at least 1: the backlog per worker is
//   undefined with none, and the outbox relay runs in the worker role), never
//   more than `maxWorkers`.
//
// What the queue signal cannot see: BullMQ work. A service's SQS handlers only
// record and enqueue; the slow part (notifications' SMTP sends, media's image
// resizing, matching's recomputation when it moves to BullMQ) waits in Redis,
// and CloudWatch knows nothing of Redis queues. The services export their
// depth as `hireflow_bullmq_jobs` to Prometheus (and through the ADOT collector
// it could become a CloudWatch metric: a later extension, not done). Until
// then the AWS stack scales on SQS only, and `minWorkers` is sized for the
// BullMQ load a service is expected to carry. The local executor reads the
// services' /metrics and counts BullMQ's waiting jobs in the backlog and its
// oldest waiting job in the age (decide.ts; docs/operations.md, "Scaling").
import type { ServiceName } from './services.ts';

export interface WorkerScalingPolicy {
  /** Workers always running (≥ 1). */
  minWorkers: number;
  /** Upper bound, whatever the backlog: the database's connections and the providers' rate limits cap useful parallelism. */
  maxWorkers: number;
  /**
   * Target visible messages per worker: acceptable latency ÷ the time one
   * worker needs per message (its handlers' duration ÷ its concurrency).
   */
  backlogPerWorker: number;
  /** The oldest message older than this adds a worker. */
  maxMessageAgeSeconds: number;
  scaleOutCooldownSeconds: number;
  scaleInCooldownSeconds: number;
  /** How long the backlog must stay low (for one worker fewer) before a worker is removed. */
  quietPeriodBeforeScaleInSeconds: number;
}

// A Fargate task takes ~30–60 s from scale-out to polling (image pull, start,
// migrations check): a minute between scale-outs lets the last one show.
const SCALE_OUT_COOLDOWN_SECONDS = 60;
// Shrinking is never urgent; flapping costs restarts and cold connections.
const SCALE_IN_COOLDOWN_SECONDS = 300;
const QUIET_PERIOD_SECONDS = 600;

/**
 * Per service. Figures assume the inbox consumer's default concurrency of 10
 * messages per worker (libs/messaging) and an acceptable queueing delay of
 * about 10 s for fast handlers, a minute for slow ones.
 */
export const workerScaling: Record<ServiceName, WorkerScalingPolicy> = {
  // Read-model updates (match results, media variants): one short transaction
  // each, milliseconds. ~100 messages/s per worker → 10 s is ~1000 messages.
  jobs: {
    minWorkers: 1,
    maxWorkers: 4,
    backlogPerWorker: 1000,
    maxMessageAgeSeconds: 60,
    scaleOutCooldownSeconds: SCALE_OUT_COOLDOWN_SECONDS,
    scaleInCooldownSeconds: SCALE_IN_COOLDOWN_SECONDS,
    quietPeriodBeforeScaleInSeconds: QUIET_PERIOD_SECONDS,
  },
  // Embedding a posting or a candidate and recomputing its matches scans the
  // tenant's other side: hundreds of milliseconds to seconds per event.
  // ~5 messages/s per worker and a minute of acceptable delay → 300.
  matching: {
    minWorkers: 1,
    maxWorkers: 6,
    backlogPerWorker: 300,
    maxMessageAgeSeconds: 180,
    scaleOutCooldownSeconds: SCALE_OUT_COOLDOWN_SECONDS,
    scaleInCooldownSeconds: SCALE_IN_COOLDOWN_SECONDS,
    quietPeriodBeforeScaleInSeconds: QUIET_PERIOD_SECONDS,
  },
  // Inbox handlers record an intent and enqueue an email: milliseconds. The
  // sends themselves are BullMQ jobs capped by EMAIL_RATE_MAX across all
  // workers, so more workers than a few never send faster. Events waiting for
  // a dependency are re-sent with a delay, which starts their age afresh.
  notifications: {
    minWorkers: 1,
    maxWorkers: 4,
    backlogPerWorker: 1000,
    maxMessageAgeSeconds: 120,
    scaleOutCooldownSeconds: SCALE_OUT_COOLDOWN_SECONDS,
    scaleInCooldownSeconds: SCALE_IN_COOLDOWN_SECONDS,
    quietPeriodBeforeScaleInSeconds: QUIET_PERIOD_SECONDS,
  },
  // The inbox carries only API key events (milliseconds); resizing (~100 ms
  // per variant, sharp one image at a time per core) is BullMQ work, invisible
  // here, so two workers stay up for an upload burst.
  media: {
    minWorkers: 2,
    maxWorkers: 6,
    backlogPerWorker: 1000,
    maxMessageAgeSeconds: 60,
    scaleOutCooldownSeconds: SCALE_OUT_COOLDOWN_SECONDS,
    scaleInCooldownSeconds: SCALE_IN_COOLDOWN_SECONDS,
    quietPeriodBeforeScaleInSeconds: QUIET_PERIOD_SECONDS,
  },
};

/** The policy's own consistency; both executors may rely on it. */
export function scalingPolicyProblems(policies: Record<string, WorkerScalingPolicy>): string[] {
  const problems: string[] = [];
  for (const [service, p] of Object.entries(policies)) {
    const whole = (name: string, value: number, min: number) => {
      if (!Number.isInteger(value) || value < min)
        problems.push(`${service}: ${name} must be a whole number ≥ ${min}`);
    };
    whole('minWorkers', p.minWorkers, 1);
    whole('maxWorkers', p.maxWorkers, p.minWorkers);
    whole('backlogPerWorker', p.backlogPerWorker, 1);
    whole('maxMessageAgeSeconds', p.maxMessageAgeSeconds, 1);
    whole('scaleOutCooldownSeconds', p.scaleOutCooldownSeconds, 0);
    whole('scaleInCooldownSeconds', p.scaleInCooldownSeconds, 0);
    // CloudWatch evaluates one-minute datapoints: the quiet period is whole minutes.
    whole('quietPeriodBeforeScaleInSeconds', p.quietPeriodBeforeScaleInSeconds, 60);
    // and an alarm looks back at most a day.
    const quiet = p.quietPeriodBeforeScaleInSeconds;
    if (quiet % 60 !== 0 || quiet > 86_400) {
      problems.push(`${service}: quietPeriodBeforeScaleInSeconds must be whole minutes, at most a day`);
    }
  }
  return problems;
}
