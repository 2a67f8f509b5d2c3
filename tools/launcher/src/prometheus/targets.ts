// Prometheus file-based service discovery (file_sd) for the processes
// `pnpm start` runs: `<state dir>/prometheus-targets.json`, rewritten whenever
// a process starts, is replaced or leaves a pool, so a Prometheus (or
// `pnpm status`) finds every admin port, the pool workers' random ones too.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One process the launcher runs. */
export interface RunningProcess {
  /** `jobs` (its API or all-role process), `jobs/2` (a pool worker). */
  name: string;
  service: string;
  role: 'api' | 'worker' | 'all';
  pid: number;
  /** Its admin listener, `http://127.0.0.1:<port>`. */
  admin: string;
}

/** A file_sd entry: Prometheus adds the labels to every series of the target. */
export interface FileSdEntry {
  targets: string[];
  labels: { service: string; role: string; process: string; pid: string };
}

export const TARGETS_FILE = 'prometheus-targets.json';
export const targetsPath = (stateDir: string) => join(stateDir, TARGETS_FILE);

export function fileSdEntries(processes: RunningProcess[]): FileSdEntry[] {
  return [...processes]
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
    .map((p) => ({
      targets: [new URL(p.admin).host],
      labels: { service: p.service, role: p.role, process: p.name, pid: String(p.pid) },
    }));
}

/** The processes a targets file lists (what `pnpm status` reads). */
export async function readTargets(stateDir: string): Promise<RunningProcess[]> {
  const entries = JSON.parse(await readFile(targetsPath(stateDir), 'utf8')) as FileSdEntry[];
  return entries.flatMap((e) =>
    e.targets.map((host) => ({
      name: e.labels.process,
      service: e.labels.service,
      role: e.labels.role as RunningProcess['role'],
      pid: Number(e.labels.pid),
      admin: `http://${host}`,
    })),
  );
}

/**
 * Writes the targets file each time `publish` is called with a changed list,
 * one write at a time, each atomic (a temporary file renamed over it): a
 * reader never sees half a file.
 */
export function targetsWriter(stateDir: string, processes: () => RunningProcess[]) {
  const file = targetsPath(stateDir);
  let last = '';
  let chain: Promise<void> = Promise.resolve();
  const publish = (): Promise<void> => {
    chain = chain.then(async () => {
      const text = `${JSON.stringify(fileSdEntries(processes()), null, 2)}\n`;
      if (text === last) return;
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
      last = text;
    });
    return chain.catch(() => undefined);
  };
  return { file, publish };
}
