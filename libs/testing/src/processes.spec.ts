import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, reapLeftovers, TEST_RUN_VARIABLE } from './processes.ts';
import { waitFor } from './wait.ts';

const run = randomUUID();
const started: number[] = [];
afterAll(() => {
  for (const pid of started) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
});

/** Starts a process that starts an idle one and exits at once: an orphan, marked with `mark`; its pid. */
async function orphan(mark: string | undefined): Promise<number> {
  const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { detached: true, stdio: 'ignore' }); c.unref(); process.stdout.write(c.pid + '\\n');`;
  const parent = spawn(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, ...(mark ? { [TEST_RUN_VARIABLE]: mark } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  parent.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await once(parent, 'close');
  const pid = Number(output.trim());
  started.push(pid);
  return pid;
}

describe('reapLeftovers', () => {
  it("kills the run's processes, and names them, but not another run's or unmarked ones", async () => {
    const [ours, other, unmarked] = await Promise.all([orphan(run), orphan(randomUUID()), orphan(undefined)]);
    expect(isRunning(ours)).toBe(true);
    const reaped = reapLeftovers(run);
    expect(reaped).toEqual([{ pid: ours, command: expect.stringContaining('setInterval') }]);
    await waitFor(() => !isRunning(ours), { timeoutMs: 5000 });
    expect(isRunning(other)).toBe(true);
    expect(isRunning(unmarked)).toBe(true);
  }, 60_000);
});

describe('isRunning', () => {
  it('is false for a process that has exited, and for no process', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    expect(isRunning(child.pid!)).toBe(true);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    expect(isRunning(child.pid!)).toBe(false);
    expect(isRunning(2 ** 22 + 1)).toBe(false);
  });
});
