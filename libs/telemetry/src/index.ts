export { shutdownTelemetry, telemetryStarted } from './handle.ts';
export { PrivacySpanProcessor } from './privacy.ts';
export { scrubSql, scrubUrl } from './scrub.ts';
export { currentTraceId } from './trace.ts';
