// The secrets of a local instance (`pnpm start`): generated on its first
// start and kept in a git-ignored file of its state directory, as the demo
// key is, so no instance runs with a value published in this repository
// (docs/security.md, API8). A value given in the environment wins.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCAL_SECRET_NAMES = ['ADMIN_TOKEN', 'UNSUBSCRIBE_SIGNING_KEY', 'APIKEY_EVENT_KEY'] as const;
export type LocalSecrets = Record<(typeof LOCAL_SECRET_NAMES)[number], string>;

/** The secrets a running instance generated (none when it has not started yet): for tools beside it (`pnpm status`). */
export async function readLocalSecrets(stateDir: string): Promise<Partial<LocalSecrets>> {
  return readFile(join(stateDir, 'secrets.json'), 'utf8').then(
    (text) => JSON.parse(text) as Partial<LocalSecrets>,
    () => ({}),
  );
}

/** The instance's secrets (the environment's where set) and the file that keeps the generated ones. */
export async function ensureLocalSecrets(
  stateDir: string,
  env: Record<string, string | undefined>,
): Promise<{ values: LocalSecrets; file: string }> {
  const file = join(stateDir, 'secrets.json');
  const kept = (await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as Partial<LocalSecrets>,
    () => ({}) as Partial<LocalSecrets>,
  )) as Partial<LocalSecrets>;
  const stored = { ...kept };
  let generated = false;
  for (const name of LOCAL_SECRET_NAMES) {
    if (!stored[name]) {
      stored[name] = randomBytes(32).toString('base64url');
      generated = true;
    }
  }
  if (generated) {
    await mkdir(stateDir, { recursive: true });
    await writeFile(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  const values = Object.fromEntries(
    LOCAL_SECRET_NAMES.map((name) => [name, env[name] || stored[name]!]),
  ) as LocalSecrets;
  return { values, file };
}
