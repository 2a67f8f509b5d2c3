// A process that a launcher or a test started must not outlive it: a service
// left behind holds its ports, its database connections and its queues'
// messages (leases, visibility timeouts) for as long as the machine runs.
// No imports beyond Node's own: the launcher's tether loads this without the runtime.

/**
 * Calls `onGone` once when the process that spawned this one with an IPC
 * channel (the launcher, a test) is gone:
 * - its channel closes (it exited, or was SIGKILLed);
 * - its channel had closed already when this runs: it died while this process
 *   was still loading its modules, and Node emitted `disconnect` before
 *   anyone listened (no event comes again, `process.connected` is false);
 * - this process was handed to another parent (init or a subreaper), checked
 *   every `intervalMs` (for a channel something else still holds).
 * A process started without an IPC channel (by hand, by an init, by an
 * orchestrator) has no parent to follow: nothing is watched. Returns a stop.
 */
export function watchParent(onGone: (reason: string) => void, intervalMs = 1000): () => void {
  if (typeof process.send !== 'function') return () => undefined;
  const parent = process.ppid;
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    process.off('disconnect', onDisconnect);
  };
  const gone = (reason: string) => {
    if (fired) return;
    fired = true;
    stop();
    onGone(reason);
  };
  const onDisconnect = () => gone('its IPC channel closed');
  if (!process.connected) {
    gone('its IPC channel had closed before this process started');
    return stop;
  }
  process.once('disconnect', onDisconnect);
  timer = setInterval(() => {
    if (process.ppid !== parent) gone(`it was re-parented from ${parent} to ${process.ppid}`);
  }, intervalMs);
  timer.unref();
  return stop;
}
