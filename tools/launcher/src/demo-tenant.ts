import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import { adminEventLog, planReplay, replayEvents, replayTarget } from '@hireflow/ops/replay';

const run = promisify(execFile);

export interface DemoKey {
  tenantId: string;
  keyId: string;
  key: string;
}

/**
 * The `demo` tenant: created on the first start through the jobs CLI (so its
 * `apikey.issued.v1` goes out like any other), its plaintext key kept in a
 * git-ignored file of the state dir and shown on every start.
 */
export async function ensureDemoKey(options: {
  root: string;
  stateDir: string;
  env: Record<string, string | undefined>;
}): Promise<DemoKey> {
  const file = join(options.stateDir, 'demo-api-key.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoKey;
  } catch {
    // first start of this instance
  }
  const issued = (await jobsCli(options, [
    'api-key',
    'create',
    'demo',
    '--contact',
    'demo@hireflow.local',
    '--json',
  ])) as DemoKey;
  const demo = { tenantId: issued.tenantId, keyId: issued.keyId, key: issued.key };
  await mkdir(options.stateDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

/** Runs `pnpm cli …` (the jobs CLI) with the jobs service's environment; returns its last line as JSON. */
export async function jobsCli(
  options: { root: string; env: Record<string, string | undefined> },
  args: string[],
): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [join(options.root, 'services/jobs/src/cli/main.ts'), ...args],
    {
      cwd: options.root,
      env: options.env as NodeJS.ProcessEnv,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** How media came to know the demo key: it did, a replay of jobs' log taught it, or an announcement did. */
export type DemoKeyOutcome =
  | { outcome: 'known' }
  | { outcome: 'replayed'; sent: number }
  | { outcome: 'announced' };

/**
 * media authenticates with its projection of jobs' keys. A key issued before
 * that projection existed (a checkout whose media database is new) or whose
 * event the in-memory emulator lost across a restart is unknown to it: then
 * the launcher replays `apikey.*` from jobs' event log into media-inbox (only
 * media sees them again; media applies each event id once) and waits until
 * media's admin port says the demo key is active, so the key it prints always
 * works on media. A key older than the log (pruned from an outbox before the
 * log existed) is not in it: then jobs announces every key again
 * (`pnpm cli api-key announce`), which also puts them in the log for next time.
 */
export async function ensureMediaKnowsDemoKey(options: {
  root: string;
  /** The jobs service's environment, for the CLI (and ADMIN_TOKEN). */
  env: Record<string, string | undefined>;
  mediaAdminUrl: string;
  jobsAdminUrl: string;
  sqs: SQSClient;
  topologyPrefix: string;
  demo: DemoKey;
  timeoutMs?: number;
}): Promise<DemoKeyOutcome> {
  const url = `${options.mediaAdminUrl}/internal/api-keys/${options.demo.keyId}`;
  const token = options.env.ADMIN_TOKEN;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const active = async () => {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    return res.ok && ((await res.json()) as { active?: boolean }).active === true;
  };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const waitUntilActive = async (how: string) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await active().catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`media did not learn the demo API key within ${timeoutMs} ms of ${how}`);
  };
  if (await active()) return { outcome: 'known' };

  let logged = false;
  const summary = await replayEvents({
    sqs: options.sqs,
    queue: await replayTarget(options.sqs, options.topologyPrefix, 'media-inbox'),
    plan: planReplay(topology, { queue: 'media-inbox' }),
    sources: [adminEventLog({ producer: 'jobs', adminUrl: options.jobsAdminUrl, adminToken: token })],
    ratePerSecond: 0,
    onEvents: (items) => {
      logged ||= items.some(
        ({ event }) => event.type === 'apikey.issued.v1' && event.data.keyId === options.demo.keyId,
      );
    },
  });
  if (logged) {
    try {
      await waitUntilActive("replaying jobs' API-key events");
      return { outcome: 'replayed', sent: summary.sent };
    } catch {
      // Events logged before APIKEY_EVENT_KEY existed carry no signature and
      // media refuses them: an announcement signs them afresh.
    }
  }
  await jobsCli(options, ['api-key', 'announce', '--json']);
  await waitUntilActive('announcing the keys');
  return { outcome: 'announced' };
}
