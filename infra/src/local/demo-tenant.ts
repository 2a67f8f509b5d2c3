import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

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
async function jobsCli(
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

/**
 * media authenticates with its projection of jobs' keys. A key issued before
 * that projection existed (a checkout whose media database is new) or whose
 * event the in-memory emulator lost across a restart is unknown to it: then
 * jobs announces every key again (`pnpm cli api-key announce`) and the
 * launcher waits until media's admin port says the demo key is active, so
 * the key it prints always works on media. Returns whether it had to announce.
 */
export async function ensureMediaKnowsDemoKey(options: {
  root: string;
  /** The jobs service's environment, for the CLI. */
  env: Record<string, string | undefined>;
  mediaAdminUrl: string;
  demo: DemoKey;
  timeoutMs?: number;
}): Promise<boolean> {
  const url = `${options.mediaAdminUrl}/internal/api-keys/${options.demo.keyId}`;
  const token = options.env.ADMIN_TOKEN;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const active = async () => {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    return res.ok && ((await res.json()) as { active?: boolean }).active === true;
  };
  if (await active()) return false;
  await jobsCli(options, ['api-key', 'announce', '--json']);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (await active().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `media did not learn the demo API key within ${options.timeoutMs ?? 30_000} ms of announcing it`,
  );
}
