import { SetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_VISIBILITY_TIMEOUT_SECONDS } from '@hireflow/contracts';
import type { DurationWindow } from './durations.ts';

export interface VisibilityResizeOptions {
  /** Never below this (default: the topology's documented default, 30 s). */
  minSeconds?: number;
  /** Never above this (default 15 min: longer handlers rely on the heartbeat). */
  maxSeconds?: number;
  /** Head room over p99 (default 3). */
  factor?: number;
  /** Too few samples say nothing about p99 (default 20). */
  minSamples?: number;
}

export interface VisibilityResize {
  p99Ms: number | undefined;
  samples: number;
  visibilityTimeoutSeconds: number;
  changed: boolean;
}

/**
 * docs/design.md: the visibility timeout starts from a documented default and is
 * resized from the consumer's measured p99, not its average:
 * `clamp(max(min, ceil(p99 × factor)), max)`.
 */
export async function resizeVisibilityTimeout(
  sqs: SQSClient,
  queueUrl: string,
  durations: DurationWindow,
  currentSeconds: number,
  options: VisibilityResizeOptions = {},
): Promise<VisibilityResize> {
  const min = options.minSeconds ?? DEFAULT_VISIBILITY_TIMEOUT_SECONDS;
  const max = options.maxSeconds ?? 900;
  const p99Ms = durations.percentile(99);
  const samples = durations.count;
  if (p99Ms === undefined || samples < (options.minSamples ?? 20)) {
    return { p99Ms, samples, visibilityTimeoutSeconds: currentSeconds, changed: false };
  }
  const seconds = Math.min(max, Math.max(min, Math.ceil((p99Ms / 1000) * (options.factor ?? 3))));
  if (seconds === currentSeconds)
    return { p99Ms, samples, visibilityTimeoutSeconds: seconds, changed: false };
  await sqs.send(
    new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: String(seconds) } }),
  );
  return { p99Ms, samples, visibilityTimeoutSeconds: seconds, changed: true };
}
