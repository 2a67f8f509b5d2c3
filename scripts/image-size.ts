// `pnpm image:size`: what the runtime image would carry, without Docker
// (issue 31). Copies what the Dockerfile's build context holds of the
// workspace (the root manifests, libs/, services/, tools/ops, no test folders)
// into a temporary folder, runs the Dockerfile's own production install there
// (its `--filter-prod` filters, read from the Dockerfile; pnpm's store makes it
// an offline install), prints the size of the sources and of node_modules and
// the largest packages, and fails when a package that must never ship is in
// it (the emulator, test servers and mail parser, chaos, the trace viewer,
// test tools). The base image (node:24-bookworm-slim) is not counted.
//   node scripts/image-size.ts [--keep] [--json]
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { installOf, parseDockerfile, stagesOf } from '../test/dockerfile.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

/** Never in the runtime image (test/image.test.ts holds the manifests to the same rule). */
export const NEVER_SHIPPED = [
  'fauxqs',
  'smtp-server',
  'mailparser',
  'vitest',
  'aws-cdk-lib',
  '@hireflow/emulator',
  '@hireflow/chaos',
  '@hireflow/trace-viewer',
  '@hireflow/testing',
  '@hireflow/launcher',
  '@hireflow/demo',
  // Reached only as optional peers, dropped by .pnpmfile.mjs (docs/deploy.md).
  'typescript',
  '@typescript/typescript-linux-x64',
];

/** The workspace files the build context gives the install stage (.dockerignore, by hand). */
async function contextFiles(): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const rootFiles = new Set([
    'package.json',
    'pnpm-lock.yaml',
    'pnpm-workspace.yaml',
    '.pnpmfile.mjs',
    '.npmrc',
    '.nvmrc',
  ]);
  return stdout
    .split('\0')
    .filter(Boolean)
    .filter((f) => rootFiles.has(f) || /^(libs|services)\//.test(f) || f.startsWith('tools/ops/'))
    .filter((f) => !/(^|\/)(test|node_modules|coverage)\//.test(f));
}

/** Bytes under a folder (apparent sizes; a file hard-linked twice counted once). */
async function sizeOf(dir: string, seen = new Set<string>()): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(path, seen);
    else if (entry.isFile()) {
      const s = await stat(path);
      const id = `${s.dev}:${s.ino}`;
      if (seen.has(id)) continue;
      seen.add(id);
      total += s.size;
    }
  }
  return total;
}

/** The packages pnpm installed (node_modules/.pnpm/<name>@<version>…), by name. */
export async function installedPackages(dir: string): Promise<string[]> {
  const store = join(dir, 'node_modules/.pnpm');
  const names = new Set<string>();
  for (const entry of await readdir(store).catch(() => [])) {
    if (entry === 'node_modules' || entry === 'lock.yaml') continue;
    // `@scope+name@1.2.3_peer…` or `name@1.2.3`.
    const at = entry.indexOf('@', entry.startsWith('@') ? 1 : 0);
    names.add((at > 0 ? entry.slice(0, at) : entry).replace('+', '/'));
  }
  return [...names].sort();
}

/** What must not ship and does: installed packages, and workspace folders of tools beyond ops. */
export async function forbiddenIn(dir: string): Promise<string[]> {
  const found = (await installedPackages(dir)).filter((name) => NEVER_SHIPPED.includes(name));
  const tools = await readdir(join(dir, 'tools')).catch(() => [] as string[]);
  return [...found, ...tools.filter((t) => t !== 'ops').map((t) => `tools/${t}`)];
}

export interface ImageSize {
  dir: string;
  totalMb: number;
  sourcesMb: number;
  nodeModulesMb: number;
  largest: { name: string; mb: number }[];
  packages: number;
  forbidden: string[];
}

export async function measureImage(options: { keep?: boolean } = {}): Promise<ImageSize> {
  const dockerfile = parseDockerfile(await readFile(join(root, 'Dockerfile'), 'utf8'));
  const install = installOf(stagesOf(dockerfile).get('install') ?? []);
  if (install.filterProd.length === 0) throw new Error('no --filter-prod install in the Dockerfile');
  const dir = await mkdtemp(join(tmpdir(), 'hireflow-image-'));
  try {
    for (const file of await contextFiles()) {
      await mkdir(dirname(join(dir, file)), { recursive: true });
      await cp(join(root, file), join(dir, file));
    }
    await run(
      'pnpm',
      [
        'install',
        '--prefer-offline',
        '--prod',
        '--frozen-lockfile',
        ...install.filterProd.flatMap((f) => ['--filter-prod', f]),
      ],
      { cwd: dir, env: { ...process.env, CI: 'true' }, maxBuffer: 64 * 1024 * 1024 },
    );
    const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
    const seen = new Set<string>();
    const nodeModules = await sizeOf(join(dir, 'node_modules'), seen);
    const total = await sizeOf(dir, seen);
    const store = join(dir, 'node_modules/.pnpm');
    const perPackage: { name: string; mb: number }[] = [];
    for (const entry of await readdir(store)) {
      if (entry === 'node_modules' || entry === 'lock.yaml') continue;
      perPackage.push({ name: entry, mb: mb(await sizeOf(join(store, entry))) });
    }
    perPackage.sort((a, b) => b.mb - a.mb);
    return {
      dir,
      totalMb: mb(total + nodeModules),
      sourcesMb: mb(total),
      nodeModulesMb: mb(nodeModules),
      largest: perPackage.slice(0, 12),
      packages: perPackage.length,
      forbidden: await forbiddenIn(dir),
    };
  } finally {
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const keep = process.argv.includes('--keep');
  const size = await measureImage({ keep });
  if (process.argv.includes('--json')) console.log(JSON.stringify(size, null, 2));
  else {
    console.log(`The runtime image's /app (without the node:24-bookworm-slim base): ${size.totalMb} MB`);
    console.log(`  node_modules: ${size.nodeModulesMb} MB in ${size.packages} packages`);
    console.log(`  sources (libs, services, tools/ops, manifests): ${size.sourcesMb} MB`);
    console.log('  largest packages:');
    for (const p of size.largest) console.log(`    ${String(p.mb).padStart(6)} MB  ${p.name}`);
    if (keep) console.log(`kept in ${size.dir}`);
  }
  if (size.forbidden.length > 0) {
    console.error(`must not ship, and would: ${size.forbidden.join(', ')}`);
    process.exit(1);
  }
}
