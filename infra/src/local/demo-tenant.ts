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
  const { stdout } = await run(
    process.execPath,
    [
      join(options.root, 'services/jobs/src/cli/main.ts'),
      'api-key',
      'create',
      'demo',
      '--contact',
      'demo@hireflow.local',
      '--json',
    ],
    { cwd: options.root, env: options.env as NodeJS.ProcessEnv },
  );
  const issued = JSON.parse(stdout.trim().split('\n').at(-1)!) as DemoKey;
  const demo = { tenantId: issued.tenantId, keyId: issued.keyId, key: issued.key };
  await mkdir(options.stateDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
