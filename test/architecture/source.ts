// Reading the workspace as text: its packages, their files and the module
// specifiers each file imports. What the architecture tests check is built
// on this, so that a rule is a few lines over data.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface WorkspacePackage {
  name: string;
  dir: string;
  manifest: {
    name: string;
    exports?: Record<string, string>;
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
}

/** Every package of the workspace (pnpm-workspace.yaml), the root included (its files: `test/`, `vitest.config.ts`). */
export function workspacePackages(): WorkspacePackage[] {
  const { packages } = parse(readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')) as {
    packages: string[];
  };
  const dirs = [ROOT];
  for (const pattern of packages) {
    if (!pattern.endsWith('/*')) dirs.push(join(ROOT, pattern));
    else
      for (const name of readdirSync(join(ROOT, pattern.slice(0, -2))))
        dirs.push(join(ROOT, pattern.slice(0, -2), name));
  }
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      return { name: manifest.name, dir, manifest };
    });
}

const SKIP = new Set(['node_modules', '.git', '.local', '.toolchain', 'cdk.out']);

/** The `.ts` files of a package: only its own, not those of a package nested in its folder. */
export function packageFiles(pkg: WorkspacePackage): string[] {
  if (pkg.dir === ROOT) {
    // The architecture tests' own fixtures are import statements inside strings.
    const own = (f: string) => f.includes(`${join(ROOT, 'test', 'architecture')}`);
    return [...walk(join(ROOT, 'test')).filter((f) => !own(f)), join(ROOT, 'vitest.config.ts')];
  }
  return walk(pkg.dir);
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (SKIP.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!existsSync(join(path, 'package.json'))) files.push(...walk(path));
    } else if (/\.(ts|mts)$/.test(entry) && !entry.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport(?:\.meta\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/gm;

/**
 * The module specifiers a source text imports: static, side-effect and
 * literal dynamic imports, and `import.meta.resolve('…')` (a CLI of another
 * package run as a process depends on that package as much as an import).
 */
export function importsOf(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT)) found.push((m[1] ?? m[2] ?? m[3])!);
  return found;
}

/** A test's file, not a process's: under a `test/` folder, a spec or a fixture beside the code, or the root package's. */
export function isTestFile(path: string): boolean {
  return /(^|\/)test\//.test(path) || /\.(spec|fixture)\.ts$/.test(path) || path === 'vitest.config.ts';
}

const BUILTIN = new Set(builtinModules);

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTIN.has(specifier);
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; undefined for relative and builtin. */
export function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Resolves a specifier from `file` to a workspace file, or a package name when it leaves the workspace. */
export function resolveImport(
  file: string,
  specifier: string,
  packages: Map<string, WorkspacePackage>,
): { file: string } | { external: string } | undefined {
  if (isBuiltin(specifier)) return undefined;
  if (specifier.startsWith('.')) return { file: resolve(dirname(file), specifier) };
  const name = packageNameOf(specifier)!;
  const pkg = packages.get(name);
  if (!pkg) return { external: name };
  const sub = `.${specifier.slice(name.length)}`;
  const target = pkg.manifest.exports?.[sub === '.' ? '.' : sub];
  if (!target) throw new Error(`${relative(ROOT, file)}: ${specifier} is not exported by ${name}`);
  return { file: join(pkg.dir, target) };
}

export const rel = (file: string) => relative(ROOT, file);
