// `pnpm bench:profile <name> [--top N]`: runs one bench under `node
// --cpu-prof` and prints where the CPU went: the top functions by self time,
// and self time summed by package (node_modules/<pkg>, the project's
// workspace, node internals). The .cpuprofile stays in bench/profiles/ for a
// flame graph (open it in Chrome DevTools → Performance, or speedscope).
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
const names = args.filter((a, i) => !a.startsWith('--') && (topIndex < 0 || i !== topIndex + 1));
if (names.length !== 1) {
  console.error('usage: pnpm bench:profile <bench name> [--top N]   (e.g. pnpm bench:profile jobs-api)');
  process.exit(2);
}
const dir = join(
  import.meta.dirname,
  'profiles',
  `${names[0]}-${new Date().toISOString().replace(/[:.]/g, '-')}`,
);
await mkdir(dir, { recursive: true });
const run = spawnSync(
  process.execPath,
  ['--cpu-prof', `--cpu-prof-dir=${dir}`, join(import.meta.dirname, 'run.ts'), names[0]!],
  { stdio: 'inherit' },
);
if (run.status !== 0) process.exit(run.status ?? 1);

// One profile per process (the bench's own, and any it started): the largest is the bench.
const files = await Promise.all(
  (await readdir(dir))
    .filter((f) => f.endsWith('.cpuprofile'))
    .map(async (f) => ({ f, size: (await stat(join(dir, f))).size })),
);
const [main, ...others] = files.sort((a, b) => b.size - a.size);
if (!main) throw new Error(`no .cpuprofile in ${dir}`);
summarise(
  relative(root, join(dir, main.f)),
  JSON.parse(await readFile(join(dir, main.f), 'utf8')) as CpuProfile,
);
if (others.length > 0) {
  console.log(`\nother threads' profiles (load generators): ${others.map(({ f }) => f).join(', ')}`);
}

/** Where a script lives: its package, `workspace:<path>` for the project's own code, or `node`. */
function packageOf(url: string): string {
  if (!url) return '(native, idle, gc: see the function table)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const path = url.replace(/^file:\/\//, '');
  const rel = relative(root, path);
  return rel.startsWith('..') ? path : `workspace: ${rel.split('/').slice(0, 2).join('/')}`;
}

function summarise(name: string, profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? `${relative(root, url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const pkg = packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const table = (m: Map<string, number>, label: string) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({
        [label]: k.length > 110 ? `…${k.slice(-109)}` : k,
        'self ms': Math.round(us / 1000),
        '%': ((100 * us) / total).toFixed(1),
      }));
  console.log(`\n## ${name}: ${Math.round(total / 1000)} ms sampled\n`);
  console.log('top functions by self time');
  console.table(table(byFunction, 'function'));
  console.log('self time by package');
  console.table(table(byPackage, 'package'));
}
