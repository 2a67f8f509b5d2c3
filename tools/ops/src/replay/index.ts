export type { ReplayArgs } from './args.ts';
export { parseReplayArgs, REPLAY_USAGE } from './args.ts';
export type { ReplayIdentity, ReplayState } from './checkpoint.ts';
export { CheckpointFile, checkpointMismatch } from './checkpoint.ts';
export type { ReplayConfig } from './config.ts';
export { defaultAdminUrl, replayConfigSchema } from './config.ts';
export type { Clock } from './pacer.ts';
export { Pacer, systemClock } from './pacer.ts';
export type { ReplayPlan, ReplaySource } from './plan.ts';
export { planReplay, ReplayInputError } from './plan.ts';
export type { ReplayOptions, ReplayProgress, ReplaySummary } from './replay.ts';
export {
  DEFAULT_REPLAY_CONCURRENCY,
  DEFAULT_REPLAY_PAGE,
  DEFAULT_REPLAY_RATE,
  replayEvents,
} from './replay.ts';
export type { SendOptions } from './sender.ts';
export { batchesOf, ReplaySendError, SQS_MAX_BATCH, sendBatch } from './sender.ts';
export type { EventLogRequest, EventLogSource } from './source.ts';
export { adminEventLog, EventLogUnavailableError } from './source.ts';
export { replayTarget } from './target.ts';
