// The SDK is started by the --import preload, before the entrypoint runs; the
// entrypoint reaches it through this process-wide handle to flush on shutdown.
const HANDLE = Symbol.for('hireflow.telemetry');

interface TelemetryHandle {
  shutdown(): Promise<void>;
}

export function setTelemetryHandle(handle: TelemetryHandle): void {
  (globalThis as Record<symbol, unknown>)[HANDLE] = handle;
}

/** Flushes pending spans and stops the SDK; a no-op when telemetry was not preloaded. */
export async function shutdownTelemetry(timeoutMs = 5000): Promise<void> {
  const handle = (globalThis as Record<symbol, unknown>)[HANDLE] as TelemetryHandle | undefined;
  if (!handle) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    handle.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

export function telemetryStarted(): boolean {
  return (globalThis as Record<symbol, unknown>)[HANDLE] !== undefined;
}
