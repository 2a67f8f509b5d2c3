// `pnpm start --prometheus`: a local Prometheus (the binary of Debian's
// `prometheus` package, or any on PATH) scraping the processes of the targets
// file and evaluating deploy/compose/alerts.yml. Its data stay in the state dir.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const PROMETHEUS_INSTALL_HINT =
  'install Prometheus (Debian/Ubuntu: apt-get install prometheus; elsewhere: https://prometheus.io/download/) and put `prometheus` on PATH';

/** Whether a `prometheus` binary runs here (`PROMETHEUS_BIN` names another). */
export function prometheusBinary(env: Record<string, string | undefined>): string | undefined {
  const bin = env.PROMETHEUS_BIN || 'prometheus';
  return spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0 ? bin : undefined;
}

/** The scrape configuration of the local Prometheus (file_sd over the launcher's targets). */
export function localPrometheusConfig(options: {
  targetsFile: string;
  rulesFile: string;
  adminToken?: string | undefined;
  intervalSeconds?: number;
}): string {
  const interval = `${options.intervalSeconds ?? 5}s`;
  const auth = options.adminToken
    ? `    authorization:\n      type: Bearer\n      credentials: ${JSON.stringify(options.adminToken)}\n`
    : '';
  return `# Written by \`pnpm start --prometheus\`: every process the launcher runs, from
# its file_sd targets (rewritten as the worker pools change), and the alerting
# rules of deploy/compose/alerts.yml.
global:
  scrape_interval: ${interval}
  evaluation_interval: ${interval}
rule_files:
  - ${JSON.stringify(options.rulesFile)}
scrape_configs:
  - job_name: hireflow
    metrics_path: /metrics
    honor_labels: true
${auth}    file_sd_configs:
      - files: [${JSON.stringify(options.targetsFile)}]
        refresh_interval: ${interval}
`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface LocalPrometheus {
  url: string;
  stop(): Promise<void>;
}

/** Starts Prometheus on 127.0.0.1:`port` (0: a free one); resolves once it is ready. */
export async function startLocalPrometheus(options: {
  bin: string;
  root: string;
  stateDir: string;
  targetsFile: string;
  port: number;
  adminToken?: string | undefined;
  log: (line: string) => void;
  readyTimeoutMs?: number;
}): Promise<LocalPrometheus> {
  const dir = join(options.stateDir, 'prometheus');
  await mkdir(join(dir, 'data'), { recursive: true });
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(
    configFile,
    localPrometheusConfig({
      targetsFile: options.targetsFile,
      rulesFile: join(options.root, 'deploy/compose/alerts.yml'),
      adminToken: options.adminToken,
    }),
  );
  const port = options.port || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  // Through the tether: Prometheus stops with the launcher, however the launcher ends.
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(import.meta.dirname, 'tether.ts'),
      options.bin,
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=2d',
    ],
    { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > 20) lines.shift();
      // Prometheus logs a lot at info; only its complaints reach the launcher's output.
      if (/level=(error|warn)/.test(line)) options.log(`prometheus: ${line}`);
    });
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (Date.now() < deadline && !gone) {
    try {
      if ((await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2000) })).ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`Prometheus did not become ready on ${url}:\n${lines.join('\n')}`);
}
