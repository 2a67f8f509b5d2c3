// The architecture's rules (docs/architecture.md), each a function from
// sources to violations, so a test can show each one catching a violation.
import { readFileSync } from 'node:fs';
import { importsOf, isBuiltin, packageNameOf, rel, resolveImport, type WorkspacePackage } from './source.ts';

export interface SourceFile {
  /** Path relative to the repository root. */
  path: string;
  text: string;
}

/** What production code (a service's or library's `src/`, not its specs) may never import. */
export const FORBIDDEN_IN_PRODUCTION = [
  '@hireflow/infra',
  '@hireflow/testing',
  'fauxqs',
  'smtp-server',
  'vitest',
];

/** Files the production rules apply to: `libs/*\/src`, `services/*\/src` and `clients/*\/src`, specs and the test helpers lib aside. */
export function isProductionSource(path: string): boolean {
  return (
    /^(libs|services|clients)\/[^/]+\/src\//.test(path) &&
    !path.startsWith('libs/testing/') &&
    !/\.spec\.ts$/.test(path)
  );
}

/** Layers: production code imports neither the tooling, the emulator, test servers nor test helpers. */
export function dependencyViolations(files: SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files.filter((f) => isProductionSource(f.path))) {
    for (const specifier of importsOf(file.text)) {
      const name = packageNameOf(specifier);
      if (name && FORBIDDEN_IN_PRODUCTION.includes(name))
        violations.push(`${file.path} imports ${specifier}`);
      if (specifier.startsWith('.') && /(^|\/)test\//.test(specifier)) {
        violations.push(`${file.path} imports a test file ${specifier}`);
      }
    }
  }
  return violations;
}

const SQL_CALL = /\.(execute|createQueryBuilder|qb|getKnex)\s*[(<]/;

/** SQL lives in each module's data-access file (`store.ts`); libs/db is the data layer itself. */
export function sqlViolations(files: SourceFile[]): string[] {
  return files
    .filter((f) => isProductionSource(f.path) && !f.path.startsWith('libs/db/'))
    .filter((f) => !f.path.endsWith('/store.ts'))
    .filter((f) => SQL_CALL.test(f.text.replace(/^\s*(\/\/|\*).*$/gm, '')))
    .map((f) => `${f.path} runs SQL outside a store.ts`);
}

/** One logger per process: only runtime's logger.ts makes one, only runService calls it. */
export function loggerViolations(files: SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files.filter((f) => isProductionSource(f.path))) {
    const code = file.text.replace(/^\s*(\/\/|\*).*$/gm, '');
    if (/\bpino\s*\(/.test(code) && file.path !== 'libs/runtime/src/logger.ts') {
      violations.push(`${file.path} constructs a pino logger`);
    }
    if (/\bcreateLogger\s*\(/.test(code) && !/^libs\/runtime\/src\/(logger|lifecycle)\.ts$/.test(file.path)) {
      violations.push(`${file.path} creates a logger (take the one runService made)`);
    }
    if (/\blogger\s*:\s*(true|\{)/.test(code)) violations.push(`${file.path} lets Fastify make a logger`);
  }
  return violations;
}

/** Every bare import of a package's files is declared in its package.json. */
export function undeclaredImports(pkg: WorkspacePackage, files: SourceFile[]): string[] {
  const declared = new Set([
    pkg.name,
    ...Object.keys(pkg.manifest.dependencies ?? {}),
    ...Object.keys(pkg.manifest.devDependencies ?? {}),
    ...Object.keys(pkg.manifest.peerDependencies ?? {}),
  ]);
  const missing: string[] = [];
  for (const file of files) {
    for (const specifier of importsOf(file.text)) {
      if (isBuiltin(specifier)) continue;
      const name = packageNameOf(specifier);
      if (name && !declared.has(name))
        missing.push(`${file.path} imports ${name}, undeclared in ${pkg.name}`);
      if (specifier.startsWith('.') && /\.\.\/(libs|services|clients|infra|bench)\//.test(specifier)) {
        missing.push(`${file.path} reaches into another package by path: ${specifier}`);
      }
    }
  }
  return missing;
}

/**
 * Every module an entrypoint loads, transitively, inside the workspace, and
 * the external packages it reaches (not followed further: their own
 * dependencies are theirs).
 */
export function importGraph(
  entry: string,
  packages: Map<string, WorkspacePackage>,
): { files: Set<string>; externals: Map<string, string> } {
  const files = new Set<string>();
  const externals = new Map<string, string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    // Specs beside the code are never imported by it; the graph follows what a process loads.
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolveImport(file, specifier, packages);
      if (!target) continue;
      if ('external' in target) {
        if (!externals.has(target.external)) externals.set(target.external, rel(file));
      } else stack.push(target.file);
    }
  }
  return { files, externals };
}
