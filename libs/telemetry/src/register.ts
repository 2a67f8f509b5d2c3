// Loaded with `node --import @hireflow/telemetry/register` before any
// application module, so instrumentations patch pg, ioredis, http, pino and
// the AWS SDK as they are first imported. The ESM loader hook must be
// registered before those imports happen, hence the dynamic import below.
import { register } from 'node:module';

if (process.env.OTEL_SDK_DISABLED !== 'true') {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { startTelemetry } = await import('./sdk.ts');
  startTelemetry();
}
