// `pnpm knip` (a step of .ci/run after lint): no unused dependency, export or
// file. Shown once on a deliberate finding: a scratch pnpm workspace laid out
// like this one, checked with this repository's knip.ts, fails on a declared
// dependency no file imports and passes once it is gone. That this repository
// itself passes is the CI step (`pnpm knip`), not a test: it takes 5-50 s
// on a loaded machine.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const knipBin = join(root, 'node_modules/knip/bin/knip.js');

/** Runs knip as `pnpm knip` does (the bin straight from node_modules: no pnpm in between). */
function knip(cwd: string) {
  const run = spawnSync(process.execPath, [knipBin, '--no-progress', '--no-config-hints'], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

function write(dir: string, file: string, text: string) {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
}

describe('knip', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hireflow-knip-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('fails on a dependency that no file imports, and passes once it is removed', () => {
    cpSync(join(root, 'knip.ts'), join(scratch, 'knip.ts'));
    write(scratch, 'package.json', JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    write(scratch, 'pnpm-workspace.yaml', 'packages:\n  - services/*\n');
    const manifest = (dependencies: Record<string, string>) =>
      JSON.stringify({ name: '@scratch/svc', private: true, type: 'module', dependencies });
    write(
      scratch,
      'services/svc/src/main.ts',
      "import { z } from 'zod';\n\nconsole.log(z.string().parse('up'));\n",
    );

    // ioredis is declared but nothing imports it: the deliberate finding.
    write(scratch, 'services/svc/package.json', manifest({ zod: '4.6.7', ioredis: '6.0.0' }));
    const failing = knip(scratch);
    expect(failing.output).toMatch(/Unused dependencies \(1\)/);
    expect(failing.output).toMatch(/ioredis\s+services\/svc\/package\.json/);
    expect(failing.output).not.toMatch(/\bzod\b/);
    expect(failing.status).toBe(1);

    write(scratch, 'services/svc/package.json', manifest({ zod: '4.6.7' }));
    const passing = knip(scratch);
    expect(passing.output.trim()).toBe('');
    expect(passing.status).toBe(0);
  }, 120_000);
});
