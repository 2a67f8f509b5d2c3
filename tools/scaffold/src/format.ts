import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Formats the written files with the workspace's own formatter (biome), so a
 * generated service passes `pnpm lint` as written. False when the workspace
 * has no biome installed (the files are still valid, only not formatted).
 */
export function formatFiles(root: string, files: string[]): boolean {
  const biome = join(root, 'node_modules/.bin/biome');
  if (!existsSync(biome)) return false;
  const result = spawnSync(biome, ['check', '--write', '--no-errors-on-unmatched', ...files], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0)
    throw new Error(`biome could not format the generated files:\n${result.stdout}${result.stderr}`);
  return true;
}
