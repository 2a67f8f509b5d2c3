// Runs a command (the local Prometheus) for as long as the launcher lives: the
// launcher holds this process's IPC channel, and when the channel closes (the
// launcher exited, even by SIGKILL) the command is stopped too. The services
// do the same themselves; Prometheus cannot.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: tether.ts <command> [args…]');
const child = spawn(command, args, { stdio: 'inherit' });
const stop = () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
