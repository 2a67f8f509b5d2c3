// The architecture as tests (docs/architecture.md): layers, data access,
// one logger per process, declared dependencies, and what a production
// service process loads. Each rule is first shown catching a violation.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import {
  dependencyViolations,
  FORBIDDEN_IN_PRODUCTION,
  importGraph,
  loggerViolations,
  type SourceFile,
  sqlViolations,
  undeclaredImports,
} from './architecture/rules.ts';
import { packageFiles, ROOT, rel, workspacePackages } from './architecture/source.ts';

const packages = workspacePackages();
const byName = new Map(packages.map((p) => [p.name, p]));
const read = (path: string): SourceFile => ({ path: rel(path), text: readFileSync(path, 'utf8') });
const allFiles = packages.flatMap((p) => packageFiles(p).map(read));

describe('each rule catches a violation', () => {
  it('production code importing the tooling, the emulator or a test helper', () => {
    const bad = [
      { path: 'libs/runtime/src/deps.ts', text: "import { topology } from '@hireflow/infra';" },
      { path: 'services/jobs/src/app.ts', text: "const { buildApp } = await import('fauxqs');" },
      { path: 'libs/messaging/src/x.ts', text: "import { waitFor } from '../test/helpers.ts';" },
      { path: 'libs/testing/src/topology.ts', text: "import { provisionTopology } from '@hireflow/infra';" },
      { path: 'services/jobs/src/app.spec.ts', text: "import { it } from 'vitest';" },
    ];
    expect(dependencyViolations(bad)).toEqual([
      'libs/runtime/src/deps.ts imports @hireflow/infra',
      'services/jobs/src/app.ts imports fauxqs',
      'libs/messaging/src/x.ts imports a test file ../test/helpers.ts',
    ]);
  });

  it('SQL outside a store.ts, a second logger, an undeclared import', () => {
    expect(
      sqlViolations([
        { path: 'services/jobs/src/modules/postings/routes.ts', text: "await em.execute('SELECT 1')" },
        { path: 'services/jobs/src/modules/postings/store.ts', text: "await em.execute('SELECT 1')" },
      ]),
    ).toEqual(['services/jobs/src/modules/postings/routes.ts runs SQL outside a store.ts']);
    expect(
      loggerViolations([
        { path: 'services/jobs/src/worker.ts', text: "const log = pino({ level: 'info' });" },
      ]),
    ).toEqual(['services/jobs/src/worker.ts constructs a pino logger']);
    const pkg = byName.get('@hireflow/config')!;
    expect(undeclaredImports(pkg, [{ path: 'libs/config/src/x.ts', text: "import pg from 'pg';" }])).toEqual([
      'libs/config/src/x.ts imports pg, undeclared in @hireflow/config',
    ]);
  });
});

describe('the tree keeps the rules', () => {
  it('no library or service imports the tooling, the emulator, test servers or test helpers from its src/', () => {
    expect(dependencyViolations(allFiles)).toEqual([]);
  });

  it('SQL only in data-access files (store.ts)', () => {
    expect(sqlViolations(allFiles)).toEqual([]);
  });

  it('one logger constructor per process', () => {
    expect(loggerViolations(allFiles)).toEqual([]);
  });

  it.each(packages.map((p) => [p.name, p] as const))('%s declares every package it imports', (_name, pkg) => {
    expect(undeclaredImports(pkg, packageFiles(pkg).map(read))).toEqual([]);
  });

  it.each(packages.map((p) => [p.name, p] as const))('%s exports only files that exist', (_name, pkg) => {
    for (const target of Object.values(pkg.manifest.exports ?? {})) {
      expect(existsSync(join(pkg.dir, target)), `${pkg.name} → ${target}`).toBe(true);
    }
  });

  it.each(SERVICE_NAMES)('a production %s process loads no emulator, test server or tooling', (service) => {
    const { files, externals } = importGraph(join(ROOT, 'services', service, 'src/main.ts'), byName);
    for (const forbidden of [...FORBIDDEN_IN_PRODUCTION, 'mailparser']) {
      expect(externals.has(forbidden), `${forbidden} reached from ${externals.get(forbidden)}`).toBe(false);
    }
    const loaded = [...files].map(rel);
    expect(loaded.filter((f) => f.startsWith('infra/') || f.startsWith('libs/testing/'))).toEqual([]);
    // The graph is real: it reaches the runtime and the service's own worker role.
    expect(loaded).toContain('libs/runtime/src/lifecycle.ts');
    expect(loaded).toContain(`services/${service}/src/worker.ts`);
  });
});
