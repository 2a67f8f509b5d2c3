// Runs a command (the local Prometheus, the own Postgres and Redis) for as
// long as the launcher lives: the launcher holds this process's IPC channel,
// and when the channel closes (the launcher exited, even by SIGKILL, and even
// before this ran) the command is stopped too. The services do the same
// themselves (@hireflow/runtime/parent); these cannot.
//   tether.ts [--signal=SIGINT] [--pid-file=<file>] <command> [args…]
// --signal: what stops the command (default SIGTERM); --pid-file: signal the
// pid written there instead of the spawned one (Postgres under runuser: the postmaster).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { watchParent } from '@hireflow/runtime/parent';

const argv = process.argv.slice(2);
let signal: NodeJS.Signals = 'SIGTERM';
let pidFile: string | undefined;
while (argv[0]?.startsWith('--')) {
  const [flag, value] = argv.shift()!.split(/=(.*)/s);
  if (flag === '--signal') signal = value as NodeJS.Signals;
  else if (flag === '--pid-file') pidFile = value;
  else throw new Error(`tether.ts: unknown flag ${flag}`);
}
const [command, ...args] = argv;
if (!command) throw new Error('usage: tether.ts [--signal=SIG] [--pid-file=FILE] <command> [args…]');
const child = spawn(command, args, { stdio: 'inherit' });
const target = (): number | undefined => {
  if (pidFile) {
    try {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (Number.isInteger(pid) && pid > 0) return pid;
    } catch {
      // Not written yet: the spawned process is all there is.
    }
  }
  return child.pid;
};
const stop = () => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const pid = target();
  try {
    if (pid !== undefined) process.kill(pid, signal);
  } catch {
    // Gone already.
  }
};
watchParent(stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
