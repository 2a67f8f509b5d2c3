// Loaded with `node --import @hireflow/telemetry/register` before any
// application module, so instrumentations patch pg, ioredis, http, pino and
// the AWS SDK as they are first imported. The ESM loader hook must be
// registered before those imports happen, hence the dynamic import below.
//
// On Node versions that can run it (24.11.1 and later), import-in-the-middle's
// hook runs synchronously on the application thread: the asynchronous
// `module.register` hook runs on a loader thread and paid a blocking message
// round trip per module resolved, which tripled a traced service's start.
import { register } from 'node:module';
import { register as registerInThread, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';

if (process.env.OTEL_SDK_DISABLED !== 'true') {
  if (supportsSyncHooks()) registerInThread();
  else register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { startTelemetry } = await import('./sdk.ts');
  startTelemetry();
}
