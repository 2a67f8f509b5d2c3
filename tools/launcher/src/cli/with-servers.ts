// `./hireflow test`: `node tools/launcher/src/cli/with-servers.ts -- <command…>`
// runs the command (the test suite) with Postgres and Redis answering on the
// addresses the tests use (127.0.0.1:5432, :6379): where nothing answers and
// the binaries are installed, our own of each runs under .local/test/ for as
// long as the command does (docs/operations.md "Own Postgres and Redis").
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startLocalServers } from '../local-servers.ts';

// The suite's addresses (libs/testing/src/global-setup.ts and the harnesses).
const TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

const root = resolve(import.meta.dirname, '../../../..');
const argv = process.argv.slice(2);
const command = argv[0] === '--' ? argv.slice(1) : argv;
if (command.length === 0) {
  console.error('usage: with-servers.ts -- <command> [args…]');
  process.exit(2);
}
const write = (line: string) => process.stdout.write(`hireflow | ${line}\n`);

let servers: Awaited<ReturnType<typeof startLocalServers>>;
try {
  servers = await startLocalServers({
    postgresUrl: TEST_POSTGRES_URL,
    redisUrl: TEST_REDIS_URL,
    stateDir: resolve(root, process.env.HIREFLOW_STATE_DIR ?? '.local', 'test'),
    // Throwaway data: no fsync; the suite's files run side by side.
    postgresSettings: { fsync: 'off', max_connections: '300' },
  });
} catch (error) {
  console.error(`hireflow: could not start a Postgres or Redis of its own: ${(error as Error).message}`);
  process.exit(1);
}
for (const note of servers.notes) write(note);

const [program, ...args] = command as [string, ...string[]];
const child = spawn(program, args, { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
const code = await new Promise<number>((done) => {
  child.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0)));
  child.once('error', (error) => {
    console.error(`hireflow: ${program}: ${error.message}`);
    done(1);
  });
});
if (servers.started.length > 0) write(`stopping our own ${servers.started.map((s) => s.name).join(' and ')}`);
await servers.stop();
process.exit(code);
