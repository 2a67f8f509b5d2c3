import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether `pid` names a live process: one that exists and is not a zombie
 * (an orphan's exit is reaped by whichever process adopted it, maybe later).
 */
export function isRunning(pid: number): boolean {
  try {
    // The state follows the command name, which is in parentheses and may hold any character.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** The variable every process of one test run inherits (the global setup sets it): how its leftovers are found. */
export const TEST_RUN_VARIABLE = 'HIREFLOW_TEST_RUN';

export interface Leftover {
  pid: number;
  command: string;
}

/**
 * SIGKILLs every live process whose environment carries `TEST_RUN_VARIABLE=run`
 * (everything a test run's files started, and what those started in turn),
 * this process and its direct children (the test workers) aside, and returns them.
 */
export function reapLeftovers(run: string): Leftover[] {
  const marker = `${TEST_RUN_VARIABLE}=${run}`;
  const reaped: Leftover[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ: string;
    let stat: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // Gone, or not ours to read.
    }
    if (!environ.split('\0').includes(marker)) continue;
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === process.pid || !isRunning(pid)) continue;
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      // Gone meanwhile.
    }
    try {
      process.kill(pid, 'SIGKILL');
      reaped.push({ pid, command });
    } catch {
      // Gone meanwhile.
    }
  }
  return reaped;
}
