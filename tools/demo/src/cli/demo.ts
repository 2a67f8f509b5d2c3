// `pnpm demo`: the whole system at work in one command, against a running
// `pnpm start` (the same HIREFLOW_INSTANCE and HIREFLOW_STATE_DIR find it).
// Exit 0 when the story ran to its end, 1 when a step failed or nothing runs.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createHireflowClient } from '@hireflow/client';
import { settingsOrExit } from '@hireflow/config/cli';
import { jobsCli, loadLauncherSettings, readLocalSecrets } from '@hireflow/launcher';
import { findRunning, instanceNames } from '@hireflow/ops';
import { DemoError } from '../api.ts';
import { runDemo } from '../story.ts';

const root = resolve(import.meta.dirname, '../../../..');
const say = (line: string) => process.stdout.write(`${line}\n`);
const color = (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR) || process.env.FORCE_COLOR === '1';
const TIMEOUT_MS = 60_000;

const settings = settingsOrExit(() => loadLauncherSettings(process.env));
const { stateDir, databaseUrl } = instanceNames(settings, root);
const running = await findRunning(stateDir);
if (!running?.urls.api) {
  console.error(
    running
      ? `pnpm start (pid ${running.pid}) is still starting: run pnpm demo once it prints "Hireflow is ready".`
      : `No running Hireflow found (no live launcher in ${stateDir}): start it with \`pnpm start\` in another terminal, then run \`pnpm demo\` again.`,
  );
  process.exit(1);
}
const traces = running.urls.traces ?? process.env.JAEGER_QUERY_URL;

// A tenant of its own per run: its matches, emails and quota are this story's alone.
const tag = randomBytes(3).toString('hex');
let tenant: { tenantName: string; key: string };
try {
  // The key's event is signed with the instance's APIKEY_EVENT_KEY, or media refuses it (docs/security.md API10).
  const { APIKEY_EVENT_KEY } = await readLocalSecrets(stateDir);
  tenant = (await jobsCli(
    {
      root,
      env: {
        ...(APIKEY_EVENT_KEY ? { APIKEY_EVENT_KEY } : {}),
        ...process.env,
        DATABASE_URL: databaseUrl('jobs'),
        LOG_LEVEL: 'warn',
      },
    },
    ['api-key', 'create', `demo-${tag}`, '--contact', `recruiter.${tag}@example.test`, '--json'],
  )) as { tenantName: string; key: string };
} catch (error) {
  console.error(`cannot create the demo's tenant with the jobs CLI: ${(error as Error).message}`);
  process.exit(1);
}
say(`Hireflow demo: the public API at ${running.urls.api}`);
say(`A new tenant for this run, ${tenant.tenantName}; its API key: ${tenant.key}\n`);
try {
  await runDemo(
    {
      api: createHireflowClient({ baseUrl: running.urls.api, apiKey: tenant.key }),
      baseUrl: running.urls.api,
      mail: running.urls.mail,
      webhooks: running.urls.webhooks,
      traces,
      tag,
      color,
      timeoutMs: TIMEOUT_MS,
    },
    say,
  );
} catch (error) {
  console.error(`\ndemo stopped: ${error instanceof DemoError ? error.message : (error as Error).stack}`);
  process.exit(1);
}
