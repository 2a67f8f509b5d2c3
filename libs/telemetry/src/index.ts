export { shutdownTelemetry, telemetryStarted } from './handle.ts';
export { PrivacySpanProcessor } from './privacy.ts';
export {
  housekeepingSpanName,
  inHousekeepingSpan,
  untraced,
  untracedContext,
  withoutChildSpans,
} from './quiet.ts';
export { scrubSql, scrubUrl } from './scrub.ts';
export type {
  EmailSignal,
  IdempotencySignal,
  JobSignal,
  MessageSignal,
  TenantBacklogSignal,
  WebhookSignal,
} from './signals.ts';
export { signals } from './signals.ts';
export { currentTraceId } from './trace.ts';
