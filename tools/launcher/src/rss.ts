import { readFile } from 'node:fs/promises';

/** A process's resident memory (VmRSS of /proc/<pid>/status, Linux) in MB of 10^6 bytes; undefined elsewhere or once it is gone. */
export async function residentMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : (Number(kb) * 1024) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * The banner's memory column of each service: its API process (or its one
 * process) and, when workers are pooled, their count and sum, from the
 * launcher's pids (`jobs`, `jobs/1`, …).
 */
export async function residentByService(pids: Record<string, number>): Promise<Record<string, string>> {
  const rss = await Promise.all(
    Object.entries(pids).map(async ([name, pid]) => [name, await residentMb(pid)] as const),
  );
  const out: Record<string, string> = {};
  for (const [name, mb] of rss) {
    if (name.includes('/')) continue;
    const workers = rss.filter(([other]) => other.startsWith(`${name}/`));
    const own = mb === undefined ? 'RSS ?' : `RSS ${mb.toFixed(0)} MB`;
    const pooled = workers.reduce((sum, [, w]) => sum + (w ?? 0), 0);
    out[name] =
      workers.length === 0
        ? own
        : `${own} + ${workers.length} worker${workers.length === 1 ? '' : 's'} ${pooled.toFixed(0)} MB`;
  }
  return out;
}
