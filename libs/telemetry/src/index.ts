export { shutdownTelemetry, telemetryStarted } from './handle.ts';
export { currentTraceId } from './trace.ts';
