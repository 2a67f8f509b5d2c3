import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RunningInstance {
  pid: number;
  startedAt: string;
  urls: Record<string, string>;
  /** Each service's admin listener (`pnpm replay` reads the event logs there). */
  admin?: Record<string, string>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The launcher already running from this state dir, if any (a stale pid file is ignored). */
export async function findRunning(stateDir: string): Promise<RunningInstance | undefined> {
  try {
    const found = JSON.parse(await readFile(join(stateDir, 'launcher.json'), 'utf8')) as RunningInstance;
    return found.pid !== process.pid && alive(found.pid) ? found : undefined;
  } catch {
    return undefined;
  }
}

export async function writeRunning(stateDir: string, instance: RunningInstance): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  await writeFile(join(stateDir, 'launcher.json'), `${JSON.stringify(instance, null, 2)}\n`);
}

export async function clearRunning(stateDir: string): Promise<void> {
  await rm(join(stateDir, 'launcher.json'), { force: true });
}
