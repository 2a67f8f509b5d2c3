export type {
  EmailSignal,
  IdempotencySignal,
  JobSignal,
  MessageSignal,
  TenantBacklogSignal,
  WebhookSignal,
} from '@hireflow/contracts/signals';
export { signals } from '@hireflow/contracts/signals';
export { shutdownTelemetry, telemetryStarted } from './handle.ts';
export { PrivacySpanProcessor } from './privacy.ts';
export { housekeepingSpanName, inHousekeepingSpan } from './quiet.ts';
export { scrubSql, scrubUrl } from './scrub.ts';
export { currentTraceId } from './trace.ts';
