import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceFolder, serviceNodeArgs, serviceProcessEnv } from './process-args.ts';

// A workspace of its own: the four's layout, a subscriber `crm` generated with
// `--dir services/crm-sync`, and a folder named `billing` whose package is another.
const root = mkdtempSync(join(tmpdir(), 'process-args-'));
const servicePackage = (folder: string, name: string) => {
  mkdirSync(join(root, 'services', folder), { recursive: true });
  writeFileSync(join(root, 'services', folder, 'package.json'), JSON.stringify({ name }));
};
servicePackage('jobs', '@hireflow/jobs');
servicePackage('crm-sync', '@hireflow/crm');
servicePackage('billing', '@hireflow/invoices');
mkdirSync(join(root, 'services', 'notes'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('serviceFolder', () => {
  it('finds a service by the name its package declares, in a folder of any name', () => {
    expect(serviceFolder(root, 'jobs')).toBe(join('services', 'jobs'));
    expect(serviceFolder(root, 'crm')).toBe(join('services', 'crm-sync'));
    expect(serviceFolder(root, 'invoices')).toBe(join('services', 'billing'));
  });

  it('refuses a name no package declares, a folder of that name included', () => {
    expect(() => serviceFolder(root, 'billing')).toThrow(
      'no folder of services/ holds the package @hireflow/billing, the service billing',
    );
    expect(() => serviceFolder(root, 'notes')).toThrow('@hireflow/notes');
  });
});

it('serviceNodeArgs starts the entry point of the folder found', () => {
  expect(serviceNodeArgs(root, 'crm').at(-1)).toBe(join(root, 'services', 'crm-sync', 'src/main.ts'));
});

describe('serviceProcessEnv', () => {
  it('gives a service the compile cache and two malloc arenas', () => {
    expect(serviceProcessEnv(root, {})).toEqual({
      NODE_COMPILE_CACHE: join(root, 'node_modules/.cache/hireflow-node'),
      MALLOC_ARENA_MAX: '2',
    });
  });

  it("keeps an operator's own MALLOC_ARENA_MAX", () => {
    expect(serviceProcessEnv(root, { MALLOC_ARENA_MAX: '4' }).MALLOC_ARENA_MAX).toBe('4');
  });
});
