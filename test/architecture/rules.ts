// The architecture's rules (docs/architecture.md), each a function from
// sources to violations, so a test can show each one catching a violation.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  importsOf,
  isBuiltin,
  isTestFile,
  packageNameOf,
  rel,
  resolveImport,
  type WorkspacePackage,
  workspacePackages,
} from './source.ts';

export interface SourceFile {
  /** Path relative to the repository root. */
  path: string;
  text: string;
}

/** The tooling: every package under `tools/` and `deploy/`, and the benchmarks. */
export const TOOLING = workspacePackages()
  .filter((p) => /^(tools|deploy)\/|^bench$/.test(rel(p.dir)))
  .map((p) => p.name);

/** What production code (a service's or library's `src/`, not its specs) may never import. */
export const FORBIDDEN_IN_PRODUCTION = [...TOOLING, '@hireflow/testing', 'fauxqs', 'smtp-server', 'vitest'];

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

/** Whatever runs or composes SQL, on any client: what each looks like in code. */
const SQL_SHAPES: { what: string; pattern: RegExp }[] = [
  { what: 'a query call', pattern: /\.query\s*(<[^>]*>)?\s*\(/ },
  { what: 'an execute call', pattern: /\bexecute(Prepared)?\s*(<[^>]*>)?\s*\(/ },
  { what: 'a sql`…` template', pattern: /\bsql(\.\w+)?\s*`/ },
  {
    what: 'a query builder',
    pattern:
      /\.(createQueryBuilder|qb|getKnex|selectFrom|insertInto|updateTable|deleteFrom)\s*(<[^>]*>)?\s*\(/,
  },
  // SQL composed as text, to be run elsewhere.
  {
    what: 'SQL text',
    pattern: /\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+[a-z_]+\s+SET|SELECT\s[^;]*?\bFROM)\b/,
  },
];

/** Code without its comments (block comments and whole-line `//` comments). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/**
 * SQL lives in each module's data-access file (`store.ts`); libs/db is the
 * data layer itself, and schema migrations (`migrations.ts`) are SQL by nature.
 */
export function sqlViolations(files: SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    if (!isProductionSource(file.path) || file.path.startsWith('libs/db/')) continue;
    if (/\/(store|migrations)\.ts$/.test(file.path)) continue;
    const text = code(file.text);
    const found = SQL_SHAPES.filter((shape) => shape.pattern.test(text)).map((shape) => shape.what);
    if (found.length > 0) violations.push(`${file.path} runs SQL outside a store.ts (${found.join(', ')})`);
  }
  return violations;
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

/**
 * Every bare import of a package's files is declared in its package.json;
 * what its non-test files import, as a dependency (not a devDependency).
 */
export function undeclaredImports(pkg: WorkspacePackage, files: SourceFile[]): string[] {
  const declared = new Set([
    pkg.name,
    ...Object.keys(pkg.manifest.dependencies ?? {}),
    ...Object.keys(pkg.manifest.devDependencies ?? {}),
    ...Object.keys(pkg.manifest.peerDependencies ?? {}),
  ]);
  // What a process of the package loads must be there in a production install (`--prod`).
  const runTime = new Set([
    ...Object.keys(pkg.manifest.dependencies ?? {}),
    ...Object.keys(pkg.manifest.peerDependencies ?? {}),
  ]);
  const tools = scriptFiles(pkg);
  const missing: string[] = [];
  for (const file of files) {
    // Tests, a package's `scripts/` and what its own scripts run are development tools: devDependencies do.
    const dev = isTestFile(file.path) || tools.has(file.path) || /^[^/]+\/[^/]+\/scripts\//.test(file.path);
    for (const specifier of importsOf(file.text)) {
      if (isBuiltin(specifier)) continue;
      const name = packageNameOf(specifier);
      if (name && !declared.has(name))
        missing.push(`${file.path} imports ${name}, undeclared in ${pkg.name}`);
      else if (name && name !== pkg.name && !dev && !runTime.has(name))
        missing.push(`${file.path} imports ${name} at run time; ${pkg.name} declares it only for its tests`);
      if (specifier.startsWith('.') && /\.\.\/(libs|services|clients|tools|deploy|bench)\//.test(specifier)) {
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

/** Files the package's own `scripts` run with node: development tools (generators), not a production process. */
function scriptFiles(pkg: WorkspacePackage): Set<string> {
  const files = new Set<string>();
  for (const script of Object.values(pkg.manifest.scripts ?? {}))
    for (const m of script.matchAll(/\bnode\s+(\S+\.ts)\b/g)) files.add(rel(join(pkg.dir, m[1]!)));
  return files;
}

/** The commands a dependency installs (`node_modules/.bin`), when its package is there to read. */
function binsOf(pkg: WorkspacePackage, dependency: string): string[] {
  const manifest = join(pkg.dir, 'node_modules', dependency, 'package.json');
  if (!existsSync(manifest)) return [];
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
  return typeof bin === 'string' ? [dependency.split('/').at(-1)!] : Object.keys(bin ?? {});
}

/**
 * Nothing declared that nothing uses: a bare import, a `resolve('…')` of
 * the package (a CLI it runs, a file it reads), or a command of it that one
 * of the package's scripts runs; type packages aside.
 */
export function unusedDependencies(pkg: WorkspacePackage, files: SourceFile[]): string[] {
  const used = new Set<string>();
  for (const file of files) {
    for (const specifier of importsOf(file.text)) used.add(packageNameOf(specifier) ?? '');
    for (const m of file.text.matchAll(/\.resolve\(\s*['"]([^'"]+)['"]/g))
      used.add(packageNameOf(m[1]!) ?? '');
  }
  const declared = [
    ...Object.keys(pkg.manifest.dependencies ?? {}),
    ...Object.keys(pkg.manifest.devDependencies ?? {}),
  ];
  const scripts = Object.values(pkg.manifest.scripts ?? {}).join('\n');
  const runs = (name: string) =>
    binsOf(pkg, name).some((bin) => new RegExp(`(^|[\\s;&|])${bin}\\b`).test(scripts));
  return declared
    .filter((name) => !name.startsWith('@types/') && !used.has(name) && !runs(name))
    .map((name) => `${pkg.name} declares ${name}, which none of its files uses`);
}
