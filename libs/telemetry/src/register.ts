// Loaded with `node --import @hireflow/telemetry/register` before any
// application module, so instrumentations patch pg, ioredis, http, pino and
// the AWS SDK as they are first imported: CommonJS `require`s through
// require-in-the-middle, ESM imports through import-in-the-middle's loader
// hook, which must be registered before those imports happen (TOOLCHAIN.md),
// hence the dynamic import below and the top-level await.
//
// On Node versions that can run it (24.11.1 and later), import-in-the-middle's
// hook runs synchronously on the application thread: the asynchronous
// `module.register` hook runs on a loader thread and paid a blocking message
// round trip per module resolved, which tripled a traced service's start.
// It wraps only the built-in modules an instrumentation patches (`http`,
// `https`): by default it wrapped every module imported (each of a service's
// own files included), which cost a traced process ~40 MB and part of a second
// of start; wrapping a package's files (pg, ioredis, pino) still started its
// WebAssembly lexers, ~3.5 MB. The packages are patched as they are `require`d
// (`loaderHookInclude` says how).
import { register } from 'node:module';
import { register as registerInThread, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';
import { loadOneCopyOfTheApi } from './one-copy.ts';

if (process.env.OTEL_SDK_DISABLED !== 'true') {
  // Before anything `require`s the API's CommonJS build (@fastify/otel does).
  loadOneCopyOfTheApi();
  const [{ startTelemetry }, { loaderHookInclude }] = await Promise.all([
    import('./sdk.ts'),
    import('./instrumentations.ts'),
  ]);
  const { modules } = await startTelemetry();
  if (supportsSyncHooks()) registerInThread({ include: loaderHookInclude(modules) });
  else register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
}
