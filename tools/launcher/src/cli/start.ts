// `pnpm start`: the whole system on one machine, without Docker.
import { resolve } from 'node:path';
import { settingsOrExit } from '@hireflow/config/cli';
import { clearRunning, findRunning, instanceNames, writeRunning } from '@hireflow/ops';
import { type LocalServers, startLocalServers } from '../local-servers.ts';
import { startPlatform } from '../platform.ts';
import { preflight } from '../preflight.ts';
import {
  type LocalPrometheus,
  PROMETHEUS_INSTALL_HINT,
  prometheusBinary,
  startLocalPrometheus,
} from '../prometheus/server.ts';
import { targetsPath } from '../prometheus/targets.ts';
import { residentByService, residentMb } from '../rss.ts';
import { loadLauncherSettings } from '../settings.ts';

const root = resolve(import.meta.dirname, '../../../..');
const write = (line: string) => process.stdout.write(`${line}\n`);
const color = Boolean(process.stdout.isTTY) || process.env.FORCE_COLOR === '1';
const withPrometheus = process.argv.includes('--prometheus');

const settings = settingsOrExit(() => loadLauncherSettings(process.env));
const names = instanceNames(settings, root);

const running = await findRunning(names.stateDir);
if (running) {
  write(`Hireflow is already running (launcher pid ${running.pid}, started ${running.startedAt}):`);
  for (const [name, url] of Object.entries(running.urls)) write(`  ${name.padEnd(14)} ${url}`);
  write(
    `Stop it with Ctrl-C in its terminal (or: kill ${running.pid}). To run a second copy: HIREFLOW_INSTANCE=two HIREFLOW_PORT_BASE=0 EMULATOR_PORT=0 MAIL_SMTP_PORT=0 MAIL_UI_PORT=0 WEBHOOK_RECEIVER_PORT=0 pnpm start`,
  );
  process.exit(0);
}

// Nothing answers on Postgres' or Redis' (local) address: our own of each,
// from the machine's binaries, on that address, under the state dir; they
// stop with the launcher (docs/operations.md "Own Postgres and Redis").
let servers: LocalServers;
try {
  servers = await startLocalServers({
    postgresUrl: settings.POSTGRES_URL,
    redisUrl: settings.REDIS_URL,
    stateDir: names.stateDir,
  });
} catch (error) {
  console.error(`launcher: could not start a Postgres or Redis of its own: ${(error as Error).message}`);
  process.exit(1);
}
for (const note of servers.notes) write(`launcher      | ${note}`);

const problems = await preflight(settings.POSTGRES_URL, settings.REDIS_URL);
if (problems.length > 0) {
  console.error(`Hireflow needs Postgres and Redis running:\n  - ${problems.join('\n  - ')}`);
  await servers.stop();
  process.exit(1);
}

// Held from here on: a second `pnpm start` reports this one instead of failing on busy ports.
await writeRunning(names.stateDir, { pid: process.pid, startedAt: new Date().toISOString(), urls: {} });

let platform: Awaited<ReturnType<typeof startPlatform>>;
const started = Date.now();
try {
  platform = await startPlatform(settings, { root, env: process.env, write, color });
} catch (error) {
  console.error(`launcher: start failed: ${(error as Error).message}`);
  await servers.stop();
  await clearRunning(names.stateDir);
  process.exit(1);
}

// `--prometheus`: a local Prometheus over the file_sd targets (docs/operations.md).
let prometheus: LocalPrometheus | undefined;
if (withPrometheus) {
  const bin = prometheusBinary(process.env);
  if (!bin) {
    write(`launcher      | --prometheus: no prometheus binary here; ${PROMETHEUS_INSTALL_HINT}`);
  } else {
    try {
      prometheus = await startLocalPrometheus({
        bin,
        root,
        stateDir: names.stateDir,
        targetsFile: targetsPath(names.stateDir),
        port: settings.PROMETHEUS_PORT,
        // The admin ports answer /metrics with the instance's token only.
        adminToken: platform.adminToken,
        log: (line) => write(`launcher      | ${line}`),
      });
    } catch (error) {
      write(`launcher      | --prometheus: ${(error as Error).message}`);
    }
  }
}

const urls: Record<string, string> = {
  api: platform.api,
  ...platform.services,
  'sns/sqs': platform.awsEndpoint,
};
if (platform.mail) urls.mail = platform.mail.uiUrl;
urls.webhooks = platform.webhooks.url;
if (platform.traces.uiUrl) urls.traces = platform.traces.uiUrl;
if (prometheus) urls.prometheus = prometheus.url;
await writeRunning(names.stateDir, {
  pid: process.pid,
  startedAt: new Date().toISOString(),
  urls,
  admin: platform.admin,
});
const readyIn = (Date.now() - started) / 1000;
// From the launcher's own start (its imports, local servers, preflight), as a developer waits for it.
const sinceLaunch = performance.now() / 1000;
// Each process's resident memory as it is ready (pnpm status: RSS and CPU later on).
const pids = platform.pids;
const resident = await residentByService(pids);
const totalMb = (await Promise.all(Object.values(pids).map(residentMb))).reduce<number>(
  (a, b) => a + (b ?? 0),
  0,
);
write(
  `\nHireflow is ready in ${sinceLaunch.toFixed(1)} s (platform and services ${readyIn.toFixed(1)} s; ${Object.keys(pids).length} service processes, RSS ${totalMb.toFixed(0)} MB in all):`,
);
write(`  ${'api'.padEnd(14)} ${platform.api}   the public API's one base URL (jobs and media)`);
for (const [name, url] of Object.entries(platform.services)) {
  write(`  ${name.padEnd(14)} ${url}   ${(resident[name] ?? '').padEnd(12)}   admin ${platform.admin[name]}`);
}
write(`  ${'sns/sqs'.padEnd(14)} ${platform.awsEndpoint}`);
if (platform.mail) write(`  ${'mail'.padEnd(14)} ${platform.mail.uiUrl}  (SMTP ${platform.mail.smtpUrl})`);
write(
  `  ${'webhooks'.padEnd(14)} ${platform.webhooks.url}  (a webhook receiver: register ${platform.webhooks.url}/in/<name>, then POST its secret to /api/endpoints)`,
);
if (platform.traces.uiUrl) {
  write(`  ${'traces'.padEnd(14)} ${platform.traces.uiUrl}  (OTLP ${platform.traces.otlpEndpoint})`);
} else write(`  ${'traces'.padEnd(14)} sent to ${platform.traces.otlpEndpoint}`);
if (prometheus) write(`  ${'prometheus'.padEnd(14)} ${prometheus.url}  (alerts: ${prometheus.url}/alerts)`);
write(`  ${'targets'.padEnd(14)} ${targetsPath(names.stateDir)}  (Prometheus file_sd; pnpm status)`);
write(
  `\nAdmin token of the admin ports (Bull Board's password, ADMIN_TOKEN for pnpm replay): kept in ${platform.secretsFile}`,
);
write(`\nDemo tenant API key (kept in ${names.stateDir}/demo-api-key.json):\n  ${platform.demo.key}`);
write(
  `  curl -s -X POST ${platform.api}/v1/jobs -H "authorization: Bearer ${platform.demo.key}" -H 'content-type: application/json' \\`,
);
write(
  `    -d '{"title":"Backend engineer","description":"Node, Postgres","skills":["node","postgres"],"location":"Berlin","remote":true}'`,
);
write(
  `  API document: docs/api/openapi.json (client: @hireflow/client); jobs' part browsable at ${platform.services.jobs}/docs`,
);
write(
  `  The 202's traceId: pnpm trace <traceId>${platform.traces.uiUrl ? `, or open ${platform.traces.uiUrl}/trace/<traceId>` : ''}`,
);
write(
  `  The whole story, in another terminal: ${settings.HIREFLOW_INSTANCE ? `HIREFLOW_INSTANCE=${settings.HIREFLOW_INSTANCE} ` : ''}pnpm demo`,
);
write('Ctrl-C stops everything.\n');

let stopping = false;
const stop = async (reason: string, failed: boolean) => {
  if (stopping) return;
  stopping = true;
  write(`launcher      | ${reason}: stopping`);
  const code = await platform.stop();
  await prometheus?.stop();
  // After the services: they drain and close their connections first.
  if (servers.started.length > 0)
    write(`launcher      | stopping our own ${servers.started.map((s) => s.name).join(' and ')}`);
  await servers.stop();
  await clearRunning(names.stateDir);
  write(`launcher      | stopped${code === 0 ? '' : ' (a service did not exit cleanly)'}`);
  process.exit(failed ? 1 : code);
};
process.on('SIGINT', () => void stop('SIGINT', false));
process.on('SIGTERM', () => void stop('SIGTERM', false));
platform.unexpectedExit.then((reason) => stop(reason, true));
